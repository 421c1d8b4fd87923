// The wire format of one provider: where to POST, which headers, how a request body looks and
// how to read a reply. Pure JSON in, JSON out, so each is tested without a socket.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "llm/chat_client.h"

namespace kp::llm {

struct RequestSettings {
    std::string model;
    int max_tokens = 8192;
    double temperature = 0.2;  // negative: leave it to the server
};

struct ParsedReply {
    std::string text;                  // may be empty when there are tool calls
    std::vector<ToolCall> tool_calls;
    std::string finish_reason;
    std::string model;
    std::optional<std::int64_t> tokens_in;   // absent when the server reported no usage
    std::optional<std::int64_t> tokens_out;
};

class ChatProtocol {
public:
    virtual ~ChatProtocol() = default;
    virtual std::string default_base_url() const = 0;
    virtual std::string endpoint(const std::string& base_url) const = 0;
    virtual std::vector<std::pair<std::string, std::string>> headers(const std::string& api_key) const = 0;
    virtual nlohmann::json build_request(const ChatRequest& request, const RequestSettings& settings) const = 0;
    // A reply with status 200 whose body lacks what a chat reply must have is an error value.
    virtual Result<ParsedReply> parse_reply(const nlohmann::json& body) const = 0;
};

// The built-in wire formats (each also registers its provider, see llm_provider.h).
std::unique_ptr<ChatProtocol> make_openai_protocol();
std::unique_ptr<ChatProtocol> make_anthropic_protocol();

// "rate_limit_error: Number of request tokens has exceeded your per-minute rate limit", read from
// either provider's error body; falls back to the start of the raw body.
std::string describe_error_body(const std::string& body);

// Strips trailing slashes, so "http://host/v1/" and "http://host/v1" give the same endpoint.
std::string trim_base_url(std::string base_url);

}  // namespace kp::llm
