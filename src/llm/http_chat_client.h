// A chat client that talks HTTP to a provider: builds the body with the provider's protocol, POSTs
// it with a per-attempt timeout, retries what is worth retrying, prices the reply and adds it to
// the run's spend.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <random>

#include "llm/chat_client.h"
#include "llm/chat_protocol.h"
#include "llm/http_transport.h"
#include "llm/llm_config.h"
#include "llm/pricing.h"

namespace kp::llm {

class HttpChatClient final : public ChatClient {
public:
    using Sleeper = std::function<void(std::chrono::milliseconds)>;

    // `protocol`: the provider's wire format. `transport` null: libcurl. `spend` may be null (no
    // accounting). `sleeper` null: really sleep.
    HttpChatClient(LlmConfig config, std::unique_ptr<ChatProtocol> protocol, PriceTable prices,
                   std::shared_ptr<SpendTracker> spend, std::shared_ptr<HttpTransport> transport = nullptr,
                   Sleeper sleeper = nullptr);

    Result<ChatReply> complete(const ChatRequest& request) override;
    std::string describe() const override;

    const std::string& endpoint() const { return endpoint_; }

private:
    // POSTs until a reply, a non-retryable failure, or the attempts run out; parses the reply.
    Result<ChatReply> post_with_retries(const ChatRequest& request, const nlohmann::json& body, int& attempts);

    LlmConfig config_;
    PriceTable prices_;
    std::shared_ptr<SpendTracker> spend_;
    std::shared_ptr<HttpTransport> transport_;
    Sleeper sleeper_;
    std::unique_ptr<ChatProtocol> protocol_;
    std::string endpoint_;
    std::mutex rng_mutex_;
    std::mt19937_64 rng_;
};

// What an HTTP provider's make_client does: loads the config's price table (the built-in one when
// it names none) and talks `protocol` over libcurl.
Result<std::shared_ptr<ChatClient>> make_http_client(const LlmConfig& config, std::unique_ptr<ChatProtocol> protocol,
                                                     std::shared_ptr<SpendTracker> spend);

}  // namespace kp::llm
