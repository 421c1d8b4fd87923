#include "llm/chat_client.h"

namespace kp::llm {

nlohmann::json to_json(const ChatMessage& message) {
    return {{"role", message.role}, {"content", message.content}};
}

Result<ChatMessage> chat_message_from_json(const nlohmann::json& j) {
    if (!j.is_object() || !j.contains("role") || !j["role"].is_string() || !j.contains("content") ||
        !j["content"].is_string())
        return make_error("a chat message needs string fields \"role\" and \"content\"");
    return ChatMessage{j["role"].get<std::string>(), j["content"].get<std::string>()};
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
