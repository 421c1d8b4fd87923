#include "eval/worker_channel_reader.h"

#include "common/utf8.h"

namespace kp {

namespace {

// A string field of an object, or `fallback` when absent or of another type.
std::string text_field(const nlohmann::json& message, const char* key, const std::string& fallback = "") {
    auto it = message.find(key);
    return it != message.end() && it->is_string() ? valid_utf8(it->get<std::string>()) : fallback;
}

}  // namespace

WorkerChannelReader::WorkerChannelReader(std::string nonce, std::function<double()> now,
                                         std::function<void(const nlohmann::json&)> on_progress)
    : nonce_(std::move(nonce)), now_(std::move(now)), on_progress_(std::move(on_progress)) {}

void WorkerChannelReader::feed(std::string_view bytes) {
    while (!bytes.empty()) {
        size_t newline = bytes.find('\n');
        std::string_view piece = bytes.substr(0, newline);
        if (!discarding_) {
            if (buffer_.size() + piece.size() > kMaxLineBytes) {
                note_forged(buffer_);  // the worker never writes a line this long
                buffer_.clear();
                discarding_ = true;
            } else {
                buffer_.append(piece);
            }
        }
        if (newline == std::string_view::npos) return;
        if (!discarding_) handle_line(buffer_);
        buffer_.clear();
        discarding_ = false;
        bytes.remove_prefix(newline + 1);
    }
}

void WorkerChannelReader::finish() {
    if (!discarding_ && !buffer_.empty()) handle_line(buffer_);
    buffer_.clear();
    discarding_ = false;
}

void WorkerChannelReader::note_forged(std::string_view line) {
    if (!state_.forged.empty()) return;
    for (char c : line.substr(0, 120)) state_.forged += c >= 0x20 && c < 0x7f ? c : '?';  // candidate bytes: printable only
    if (state_.forged.empty()) state_.forged = "(an empty or unprintable line)";
}

void WorkerChannelReader::handle_line(std::string_view line) {
    // Raw bytes that are not UTF-8 would make the whole line unparseable: replace them first.
    nlohmann::json m = nlohmann::json::parse(valid_utf8(line), nullptr, false);
    if (m.is_discarded() || !m.is_object() || nonce_.empty() || text_field(m, "nonce") != nonce_ || !m.contains("type")) {
        note_forged(line);
        return;
    }
    std::string type = text_field(m, "type");
    if (type == "hello") {
        state_.got_hello = true;
        auto device = m.find("device");
        state_.hello = device != m.end() && device->is_object() ? *device : nlohmann::json::object();
        state_.phase_started.emplace("hello", now_());
    } else if (type == "progress") {
        state_.phase_started.emplace(text_field(m, "phase"), now_());
        if (on_progress_) on_progress_(m);
    } else if (type == "sandbox") {
        auto layers = m.find("sandbox");
        state_.sandbox = layers != m.end() && layers->is_object() ? *layers : nlohmann::json::object();
    } else if (type == "sandbox_notes") {
        auto notes = m.find("notes");
        if (notes != m.end() && notes->is_array())
            for (const auto& n : *notes)
                if (n.is_string()) state_.sandbox_notes.push_back(valid_utf8(n.get<std::string>()));
    } else if (type == "sandbox_violation") {
        if (state_.violation.empty()) state_.violation = text_field(m, "message", "sandbox: a forbidden call");
    } else if (type == "refused") {
        state_.refusal = text_field(m, "message", "the worker refused to run candidate code");
    } else if (type == "collection") {
        if (state_.collections.size() < kMaxCollections) state_.collections.push_back(std::move(m));
    } else if (type == "result") {
        state_.status = FailureClass::Ok;
        state_.message.clear();
        state_.phase.clear();
        state_.result = std::move(m);
        state_.got_final = true;
    } else if (type == "failure") {
        state_.status = parse_failure_class(text_field(m, "class", "crash")).value_or(FailureClass::Crash);
        state_.message = text_field(m, "message");
        state_.phase = text_field(m, "phase");
        state_.result = nullptr;
        state_.got_final = true;
    }
}

}  // namespace kp
