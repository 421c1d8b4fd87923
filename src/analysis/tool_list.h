// The registered tools as `kernelpro profile --list-tools` shows them: one line per tool (name,
// roofline classes, data it needs), or JSON (schema kernelpro.tools/1) with every metric each tool
// asks for and the roofline (stage 1) metrics, which scripts/ncu-cost-probe measures pass counts of.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "analysis/tool_registry.h"

namespace kp::analysis {

std::string render_tool_list(const ToolRegistry& registry = default_tool_registry());
nlohmann::json tool_list_json(const ToolRegistry& registry = default_tool_registry());

}  // namespace kp::analysis
