#include "llm/chat_client.h"

namespace kp::llm {

// Tool fields appear only when set, so a plain conversation's JSON (and every recording made
// before function calling) is unchanged.
nlohmann::json to_json(const ChatMessage& message) {
    nlohmann::json j{{"role", message.role}, {"content", message.content}};
    if (!message.tool_calls.empty()) j["tool_calls"] = tool_calls_to_json(message.tool_calls);
    if (!message.tool_call_id.empty()) j["tool_call_id"] = message.tool_call_id;
    if (message.is_error) j["is_error"] = true;
    return j;
}

Result<ChatMessage> chat_message_from_json(const nlohmann::json& j) {
    if (!j.is_object() || !j.contains("role") || !j["role"].is_string() || !j.contains("content") ||
        !j["content"].is_string())
        return make_error("a chat message needs string fields \"role\" and \"content\"");
    ChatMessage message{j["role"].get<std::string>(), j["content"].get<std::string>()};
    if (j.contains("tool_calls")) {
        auto calls = tool_calls_from_json(j["tool_calls"]);
        if (!calls) return calls.error();
        message.tool_calls = std::move(*calls);
    }
    if (j.contains("tool_call_id") && j["tool_call_id"].is_string()) message.tool_call_id = j["tool_call_id"].get<std::string>();
    message.is_error = j.value("is_error", false);
    return message;
}

nlohmann::json to_json(const Usage& usage) {
    return {{"tokens_in", usage.tokens_in}, {"tokens_out", usage.tokens_out}, {"latency_s", usage.latency_s},
            {"cost", usage.cost},           {"estimated", usage.estimated},   {"priced", usage.priced}};
}

Usage usage_from_json(const nlohmann::json& j) {
    Usage usage;
    if (!j.is_object()) return usage;
    usage.tokens_in = j.value("tokens_in", std::int64_t{0});
    usage.tokens_out = j.value("tokens_out", std::int64_t{0});
    usage.latency_s = j.value("latency_s", 0.0);
    usage.cost = j.value("cost", 0.0);
    usage.estimated = j.value("estimated", false);
    usage.priced = j.value("priced", true);
    return usage;
}

}  // namespace kp::llm
