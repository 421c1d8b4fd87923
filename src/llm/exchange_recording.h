// Recording LLM exchanges to a JSONL file (one exchange per line), and reading them back.
// A recording makes a run reproducible (ReplayClient serves it back) and auditable (every prompt,
// raw request and raw reply is kept; API keys never are, they travel in headers).
#pragma once

#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "llm/chat_client.h"

namespace kp::llm {

struct ExchangeRecord {
    std::string client;                 // ChatClient::describe() of who answered
    std::string purpose;                // ChatRequest::purpose
    std::vector<ChatMessage> messages;  // provider-neutral prompt, what replay compares
    nlohmann::json request;             // raw request body (null for errors before sending)
    nlohmann::json reply;               // raw reply body (null on error)
    std::string text;
    std::vector<ToolCall> tool_calls;   // the reply's; replay hands them back for kernelpro to run again
    std::string finish_reason;
    std::string model;
    Usage usage;
    int attempts = 0;
    std::optional<std::string> error;   // set when the call failed; replay returns it again
    std::string time;                   // UTC, ISO 8601
    int line = 0;                       // line in the file it was read from (not written)
};

nlohmann::json to_json(const ExchangeRecord& record);
Result<ExchangeRecord> exchange_record_from_json(const nlohmann::json& j);

ExchangeRecord make_exchange_record(const std::string& client, const ChatRequest& request,
                                    const Result<ChatReply>& reply);

// Errors name the file and line of the first bad record.
Result<std::vector<ExchangeRecord>> load_recording(const std::filesystem::path& path);

// Appends records, one line each, flushed as written, so a killed run keeps what it paid for.
// Thread-safe.
class ExchangeRecorder {
public:
    static Result<std::shared_ptr<ExchangeRecorder>> open(const std::filesystem::path& path);
    ~ExchangeRecorder();
    ExchangeRecorder(const ExchangeRecorder&) = delete;
    ExchangeRecorder& operator=(const ExchangeRecorder&) = delete;

    Status write(const ExchangeRecord& record);
    const std::filesystem::path& path() const { return path_; }

private:
    ExchangeRecorder(std::filesystem::path path, std::FILE* file) : path_(std::move(path)), file_(file) {}
    std::filesystem::path path_;
    std::FILE* file_;
    std::mutex mutex_;
};

// Wraps any client and records every exchange, failed ones included. A failed write is reported
// on stderr once and does not fail the call: the reply was paid for and is still good.
class RecordingChatClient final : public ChatClient {
public:
    RecordingChatClient(std::shared_ptr<ChatClient> inner, std::shared_ptr<ExchangeRecorder> recorder);
    Result<ChatReply> complete(const ChatRequest& request) override;
    std::string describe() const override { return inner_->describe(); }
    void skip_served(const std::vector<std::string>& purposes) override { inner_->skip_served(purposes); }

private:
    std::shared_ptr<ChatClient> inner_;
    std::shared_ptr<ExchangeRecorder> recorder_;
    std::once_flag warned_;
};

}  // namespace kp::llm
