#include "analysis/tool_registry.h"

#include <algorithm>

#include "analysis/tools/builtin_tools.h"

namespace kp::analysis {

void ToolRegistry::add(std::unique_ptr<MicroTool> tool) {
    for (auto& existing : tools_) {
        if (existing->name() == tool->name()) {
            existing = std::move(tool);
            return;
        }
    }
    tools_.push_back(std::move(tool));
}

const MicroTool* ToolRegistry::find(std::string_view name) const {
    for (const auto& tool : tools_)
        if (tool->name() == name) return tool.get();
    return nullptr;
}

std::vector<const MicroTool*> ToolRegistry::all() const {
    std::vector<const MicroTool*> out;
    for (const auto& tool : tools_) out.push_back(tool.get());
    return out;
}

std::vector<std::string> ToolRegistry::names() const {
    std::vector<std::string> out;
    for (const auto& tool : tools_) out.emplace_back(tool->name());
    return out;
}

std::vector<const MicroTool*> ToolRegistry::for_class(RooflineClass kind) const {
    std::vector<const MicroTool*> out;
    for (const auto& tool : tools_) {
        auto classes = tool->classes();
        if (std::find(classes.begin(), classes.end(), kind) != classes.end()) out.push_back(tool.get());
    }
    return out;
}

const ToolRegistry& default_tool_registry() {
    static const ToolRegistry registry = [] {
        ToolRegistry r;
        for (auto& tool : make_builtin_tools()) r.add(std::move(tool));
        return r;
    }();
    return registry;
}

}  // namespace kp::analysis
