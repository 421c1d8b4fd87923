// Function calling, provider-neutral: the tools a request offers, the calls a reply makes, and the
// tool box that runs them. Each provider's protocol maps these to its own wire format (OpenAI's
// `tools`/`tool_calls`, Anthropic's `tools`/`tool_use`/`tool_result`); the agents never see JSON
// of either.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace kp::llm {

struct ToolDefinition {
    std::string name;           // [a-zA-Z0-9_-]{1,64}: what both providers accept
    std::string description;    // what it does and when to use it, for the model
    nlohmann::json parameters;  // a JSON Schema object for the arguments

    bool operator==(const ToolDefinition&) const = default;
};

struct ToolCall {
    std::string id;             // the provider's id, echoed back with the result
    std::string name;
    // The arguments as sent: an object when they parsed; a JSON string holding the raw text when
    // the model wrote arguments that are not JSON (OpenAI sends them as a string), so they are
    // sent back unchanged and the tool refuses them with a reason.
    nlohmann::json arguments;

    bool operator==(const ToolCall&) const = default;
};

struct ToolResult {
    std::string text;           // what the model reads, already cut to the tool's budget
    bool is_error = false;      // a refused or failed call (bad regex, path outside the tree ...)
};

// What the agents call when a reply asks for tools. Implementations never throw; a bad call is a
// ToolResult with is_error set, which the model reads and can correct.
class ToolBox {
public:
    virtual ~ToolBox() = default;
    virtual const std::vector<ToolDefinition>& definitions() const = 0;
    virtual ToolResult run(const ToolCall& call) = 0;
};

nlohmann::json to_json(const ToolCall& call);
Result<ToolCall> tool_call_from_json(const nlohmann::json& j);
nlohmann::json tool_calls_to_json(const std::vector<ToolCall>& calls);
Result<std::vector<ToolCall>> tool_calls_from_json(const nlohmann::json& j);

}  // namespace kp::llm
