// The chat client interface every LLM provider implements: messages in, one reply out, with usage.
// Providers (OpenAI-compatible, Anthropic), the replay client and the recording decorator all sit
// behind it, so the agents and the search loop never know which one they talk to.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "llm/tool_calls.h"

namespace kp::llm {

struct ChatMessage {
    ChatMessage() = default;
    ChatMessage(std::string role_, std::string content_) : role(std::move(role_)), content(std::move(content_)) {}

    std::string role;  // "system", "user", "assistant", or "tool" (the result of one tool call)
    std::string content;
    std::vector<ToolCall> tool_calls;  // assistant: the calls this turn made (content may be empty)
    std::string tool_call_id;          // tool: the call this result answers
    bool is_error = false;             // tool: the call was refused or failed

    bool operator==(const ChatMessage&) const = default;
};

struct ChatRequest {
    ChatRequest() = default;
    ChatRequest(std::vector<ChatMessage> messages_, int max_tokens_ = 0, double temperature_ = -1.0, std::string purpose_ = {})
        : messages(std::move(messages_)), max_tokens(max_tokens_), temperature(temperature_), purpose(std::move(purpose_)) {}

    std::vector<ChatMessage> messages;
    int max_tokens = 0;          // 0: the client's configured default
    double temperature = -1.0;   // negative: the client's configured default
    std::string purpose;         // who asks ("coder", ...); recorded, never sent
    std::vector<ToolDefinition> tools;  // offered to the model; empty: no function calling
    bool allow_tool_calls = true;       // false: tools stay declared but the model must answer in text
};

struct Usage {
    std::int64_t tokens_in = 0;
    std::int64_t tokens_out = 0;
    double latency_s = 0.0;     // wall time of the whole call, retries and back-off included
    double cost = 0.0;          // in the price table's currency (USD by default)
    bool estimated = false;     // the server reported no token counts; they were estimated
    bool priced = true;         // false when the model is missing from the price table
};

struct ChatReply {
    std::string text;           // may be empty when the reply is only tool calls
    std::vector<ToolCall> tool_calls;
    std::string finish_reason;  // provider's word: "stop", "length", "end_turn", "max_tokens", "tool_calls", ...
    std::string model;          // the model that answered, as the server names it
    Usage usage;
    int attempts = 1;           // HTTP attempts this reply took
    nlohmann::json raw_request; // exactly what was sent (without credentials)
    nlohmann::json raw_reply;   // exactly what came back

    // The model stopped because it ran out of output tokens, so the text is cut short.
    bool hit_token_limit() const { return finish_reason == "length" || finish_reason == "max_tokens"; }
};

class ChatClient {
public:
    virtual ~ChatClient() = default;
    // Errors come back as values: a failed request (after the client's own retries), a reply that
    // cannot be parsed, or a replay mismatch. Never throws for any of those.
    virtual Result<ChatReply> complete(const ChatRequest& request) = 0;
    // "openai:gpt-4.1 at https://api.openai.com/v1", for logs and errors.
    virtual std::string describe() const = 0;
    // A resumed run's client continues where the run left off: `purposes` are those of the
    // exchanges the run already made and kept, oldest first. Clients that answer from a fixed
    // sequence (a script, a recording) skip that many replies; a live model has nothing to skip.
    virtual void skip_served(const std::vector<std::string>& purposes) {}
};

nlohmann::json to_json(const ChatMessage& message);
Result<ChatMessage> chat_message_from_json(const nlohmann::json& j);
nlohmann::json to_json(const Usage& usage);
Usage usage_from_json(const nlohmann::json& j);

}  // namespace kp::llm
