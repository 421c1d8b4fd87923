// Micro-profiling tools registered by name. default_tool_registry() holds every built-in tool.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/micro_tool.h"

namespace kp::analysis {

class ToolRegistry {
public:
    void add(std::unique_ptr<MicroTool> tool);  // a second tool with the same name replaces the first
    const MicroTool* find(std::string_view name) const;
    std::vector<const MicroTool*> all() const;
    std::vector<std::string> names() const;  // every tool's, in registration order
    std::vector<const MicroTool*> for_class(RooflineClass kind) const;

private:
    std::vector<std::unique_ptr<MicroTool>> tools_;
};

const ToolRegistry& default_tool_registry();

}  // namespace kp::analysis
