#include "llm/exchange_recording.h"

#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <iostream>

namespace kp::llm {

namespace {

// Version 2 added tool calls (a reply's "tool_calls", tool messages in "messages"); a version 1
// recording is a version 2 one without them.
constexpr int kFormatVersion = 2;

std::string utc_now_iso8601() {
    const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buffer[32];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buffer;
}

std::string string_field(const nlohmann::json& j, const char* key) {
    return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

}  // namespace

nlohmann::json to_json(const ExchangeRecord& r) {
    nlohmann::json messages = nlohmann::json::array();
    for (const auto& m : r.messages) messages.push_back(to_json(m));
    nlohmann::json j{{"v", kFormatVersion},     {"time", r.time},       {"client", r.client},
                     {"purpose", r.purpose},    {"messages", messages}, {"request", r.request},
                     {"reply", r.reply},        {"text", r.text},       {"finish_reason", r.finish_reason},
                     {"model", r.model},        {"usage", to_json(r.usage)}, {"attempts", r.attempts}};
    if (!r.tool_calls.empty()) j["tool_calls"] = tool_calls_to_json(r.tool_calls);
    j["error"] = r.error ? nlohmann::json(*r.error) : nlohmann::json(nullptr);
    return j;
}

Result<ExchangeRecord> exchange_record_from_json(const nlohmann::json& j) {
    if (!j.is_object()) return make_error("a record must be a JSON object");
    if (const int version = j.value("v", 0); version < 1 || version > kFormatVersion)
        return make_error(fmt::format("unsupported record version (expected \"v\": 1 to {})", kFormatVersion));
    if (!j.contains("messages") || !j["messages"].is_array()) return make_error("record has no \"messages\" array");
    ExchangeRecord r;
    for (const auto& m : j["messages"]) {
        auto message = chat_message_from_json(m);
        if (!message) return message.error();
        r.messages.push_back(std::move(*message));
    }
    r.time = string_field(j, "time");
    r.client = string_field(j, "client");
    r.purpose = string_field(j, "purpose");
    r.request = j.value("request", nlohmann::json(nullptr));
    r.reply = j.value("reply", nlohmann::json(nullptr));
    r.text = string_field(j, "text");
    if (j.contains("tool_calls")) {
        auto calls = tool_calls_from_json(j["tool_calls"]);
        if (!calls) return calls.error();
        r.tool_calls = std::move(*calls);
    }
    r.finish_reason = string_field(j, "finish_reason");
    r.model = string_field(j, "model");
    r.usage = usage_from_json(j.value("usage", nlohmann::json::object()));
    r.attempts = j.value("attempts", 1);
    if (j.contains("error") && j["error"].is_string()) r.error = j["error"].get<std::string>();
    if (!r.error && r.text.empty() && r.tool_calls.empty())
        return make_error("record has neither \"text\", \"tool_calls\" nor \"error\"");
    return r;
}

ExchangeRecord make_exchange_record(const std::string& client, const ChatRequest& request,
                                    const Result<ChatReply>& reply) {
    ExchangeRecord r;
    r.client = client;
    r.purpose = request.purpose;
    r.messages = request.messages;
    r.time = utc_now_iso8601();
    if (reply) {
        r.request = reply->raw_request;
        r.reply = reply->raw_reply;
        r.text = reply->text;
        r.tool_calls = reply->tool_calls;
        r.finish_reason = reply->finish_reason;
        r.model = reply->model;
        r.usage = reply->usage;
        r.attempts = reply->attempts;
    } else {
        r.error = reply.error().message;
    }
    return r;
}

Result<std::vector<ExchangeRecord>> load_recording(const std::filesystem::path& path) {
    std::ifstream in(path);
    if (!in) return make_error("cannot read LLM recording " + path.string());
    std::vector<ExchangeRecord> records;
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
        ++number;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        const auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
        if (j.is_discarded()) return make_error(fmt::format("{}:{}: not valid JSON", path.string(), number));
        auto record = exchange_record_from_json(j);
        if (!record) return make_error(fmt::format("{}:{}: {}", path.string(), number, record.error().message));
        record->line = number;
        records.push_back(std::move(*record));
    }
    return records;
}

Result<std::shared_ptr<ExchangeRecorder>> ExchangeRecorder::open(const std::filesystem::path& path) {
    std::error_code ec;
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
    std::FILE* file = std::fopen(path.c_str(), "a");
    if (!file) return make_error("cannot open LLM recording " + path.string() + " for appending");
    return std::shared_ptr<ExchangeRecorder>(new ExchangeRecorder(path, file));
}

ExchangeRecorder::~ExchangeRecorder() {
    if (file_) std::fclose(file_);
}

Status ExchangeRecorder::write(const ExchangeRecord& record) {
    // Replace invalid UTF-8 rather than throw: a model's reply is not ours to vouch for.
    const std::string line = to_json(record).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    std::lock_guard lock(mutex_);
    if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fflush(file_) != 0)
        return make_error("cannot write LLM recording " + path_.string());
    return {};
}

RecordingChatClient::RecordingChatClient(std::shared_ptr<ChatClient> inner, std::shared_ptr<ExchangeRecorder> recorder)
    : inner_(std::move(inner)), recorder_(std::move(recorder)) {}

Result<ChatReply> RecordingChatClient::complete(const ChatRequest& request) {
    auto reply = inner_->complete(request);
    auto written = recorder_->write(make_exchange_record(inner_->describe(), request, reply));
    if (!written)
        std::call_once(warned_, [&] { std::cerr << "kernelpro: warning: " << written.error().message << "\n"; });
    return reply;
}

}  // namespace kp::llm
