#include "llm/replay_client.h"

#include <fmt/format.h>

#include <algorithm>

namespace kp::llm {

namespace {

std::string excerpt(const std::string& text, std::size_t at) {
    constexpr std::size_t kBefore = 20, kLength = 60;
    const std::size_t start = at > kBefore ? at - kBefore : 0;
    std::string shown = text.substr(start, kLength);
    for (char& c : shown)
        if (c == '\n') c = ' ';
    return (start > 0 ? "..." : "") + shown + (start + kLength < text.size() ? "..." : "");
}

}  // namespace

std::optional<std::string> describe_message_mismatch(const std::vector<ChatMessage>& recorded,
                                                     const std::vector<ChatMessage>& asked) {
    const std::size_t common = std::min(recorded.size(), asked.size());
    for (std::size_t i = 0; i < common; ++i) {
        const auto& r = recorded[i];
        const auto& a = asked[i];
        if (r.role != a.role)
            return fmt::format("message {} has role '{}', recorded '{}'", i + 1, a.role, r.role);
        if (r.content != a.content) {
            const auto diff = std::mismatch(r.content.begin(), r.content.end(), a.content.begin(), a.content.end());
            const std::size_t at = static_cast<std::size_t>(diff.first - r.content.begin());
            return fmt::format("message {} ({}) differs at character {}: recorded \"{}\", asked \"{}\"", i + 1, r.role,
                               at + 1, excerpt(r.content, at), excerpt(a.content, at));
        }
        // A tool call or result that differs means the tools or the tree changed since recording.
        if (r.tool_calls != a.tool_calls)
            return fmt::format("message {} ({}) makes other tool calls: recorded {}, asked {}", i + 1, r.role,
                               tool_calls_to_json(r.tool_calls).dump(), tool_calls_to_json(a.tool_calls).dump());
        if (r.tool_call_id != a.tool_call_id || r.is_error != a.is_error)
            return fmt::format("message {} ({}) answers tool call '{}'{}, recorded '{}'{}", i + 1, r.role, a.tool_call_id,
                               a.is_error ? " as an error" : "", r.tool_call_id, r.is_error ? " as an error" : "");
    }
    if (recorded.size() != asked.size())
        return fmt::format("{} messages asked, {} recorded", asked.size(), recorded.size());
    return std::nullopt;
}

Result<std::unique_ptr<ReplayClient>> ReplayClient::open(const std::filesystem::path& path, ReplayOptions options,
                                                         std::shared_ptr<SpendTracker> spend) {
    auto records = load_recording(path);
    if (!records) return records.error();
    if (records->empty()) return make_error("LLM recording " + path.string() + " holds no exchanges");
    return std::make_unique<ReplayClient>(std::move(*records), path.string(), options, std::move(spend));
}

ReplayClient::ReplayClient(std::vector<ExchangeRecord> records, std::string source, ReplayOptions options,
                           std::shared_ptr<SpendTracker> spend)
    : records_(std::move(records)), source_(std::move(source)), options_(options), spend_(std::move(spend)) {}

std::size_t ReplayClient::served() const {
    std::lock_guard lock(mutex_);
    return next_;
}

void ReplayClient::skip_served(const std::vector<std::string>& purposes) {
    std::lock_guard lock(mutex_);
    next_ = std::min(records_.size(), next_ + purposes.size());
}

std::size_t ReplayClient::remaining() const {
    std::lock_guard lock(mutex_);
    return records_.size() - next_;
}

Result<ChatReply> ReplayClient::complete(const ChatRequest& request) {
    std::lock_guard lock(mutex_);
    if (next_ >= records_.size())
        return make_error(fmt::format("replay {}: exhausted: all {} recorded exchanges were served and the run asked "
                                      "for another ({})",
                                      source_, records_.size(), request.purpose.empty() ? "no purpose" : request.purpose));
    const ExchangeRecord& record = records_[next_];
    const std::string where = fmt::format("replay {}:{} (exchange {})", source_, record.line, next_ + 1);
    if (options_.check_requests) {
        if (auto mismatch = describe_message_mismatch(record.messages, request.messages))
            return make_error(where + ": the request does not match the recording: " + *mismatch);
    }
    ++next_;
    if (record.error) {
        if (spend_) spend_->add_failure(record.usage.latency_s);
        return make_error(*record.error);
    }
    ChatReply reply;
    reply.text = record.text;
    reply.tool_calls = record.tool_calls;
    reply.finish_reason = record.finish_reason;
    reply.model = record.model;
    reply.usage = record.usage;
    reply.attempts = record.attempts;
    reply.raw_request = record.request;
    reply.raw_reply = record.reply;
    if (spend_) spend_->add_reply(reply.usage);
    return reply;
}

}  // namespace kp::llm
