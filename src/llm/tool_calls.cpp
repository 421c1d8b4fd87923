#include "llm/tool_calls.h"

namespace kp::llm {

nlohmann::json to_json(const ToolCall& call) {
    return {{"id", call.id}, {"name", call.name}, {"arguments", call.arguments}};
}

Result<ToolCall> tool_call_from_json(const nlohmann::json& j) {
    if (!j.is_object() || !j.contains("name") || !j["name"].is_string())
        return make_error("a tool call needs a string field \"name\"");
    ToolCall call;
    call.name = j["name"].get<std::string>();
    if (j.contains("id") && j["id"].is_string()) call.id = j["id"].get<std::string>();
    call.arguments = j.value("arguments", nlohmann::json::object());
    return call;
}

nlohmann::json tool_calls_to_json(const std::vector<ToolCall>& calls) {
    nlohmann::json array = nlohmann::json::array();
    for (const auto& call : calls) array.push_back(to_json(call));
    return array;
}

Result<std::vector<ToolCall>> tool_calls_from_json(const nlohmann::json& j) {
    if (!j.is_array()) return make_error("\"tool_calls\" must be an array");
    std::vector<ToolCall> calls;
    for (const auto& item : j) {
        auto call = tool_call_from_json(item);
        if (!call) return call.error();
        calls.push_back(std::move(*call));
    }
    return calls;
}

}  // namespace kp::llm
