// Serves a recorded JSONL file back, exchange by exchange, in order: for tests and reproducible
// runs. It fails loudly (an error value naming the file and line) when the run asks something the
// recording did not, or asks more than it holds.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <vector>

#include "llm/chat_client.h"
#include "llm/exchange_recording.h"
#include "llm/pricing.h"

namespace kp::llm {

struct ReplayOptions {
    // Compare each request's messages with the recorded ones. Off: serve in order, whatever is asked.
    bool check_requests = true;
};

class ReplayClient final : public ChatClient {
public:
    static Result<std::unique_ptr<ReplayClient>> open(const std::filesystem::path& path, ReplayOptions options = {},
                                                      std::shared_ptr<SpendTracker> spend = nullptr);
    ReplayClient(std::vector<ExchangeRecord> records, std::string source, ReplayOptions options,
                 std::shared_ptr<SpendTracker> spend);

    Result<ChatReply> complete(const ChatRequest& request) override;
    std::string describe() const override { return "replay of " + source_; }
    // A recording is served in order whatever the purpose: skips as many exchanges.
    void skip_served(const std::vector<std::string>& purposes) override;

    std::size_t served() const;
    std::size_t remaining() const;

private:
    std::vector<ExchangeRecord> records_;
    std::string source_;
    ReplayOptions options_;
    std::shared_ptr<SpendTracker> spend_;
    mutable std::mutex mutex_;
    std::size_t next_ = 0;
};

// Why two prompts differ, e.g. "message 2 (user) differs at character 120: recorded "...", asked "..."";
// nullopt if equal.
std::optional<std::string> describe_message_mismatch(const std::vector<ChatMessage>& recorded,
                                                     const std::vector<ChatMessage>& asked);

}  // namespace kp::llm
