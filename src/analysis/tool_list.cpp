#include "analysis/tool_list.h"

#include <fmt/format.h>

#include "analysis/roofline.h"

namespace kp::analysis {

namespace {

std::string joined(const std::vector<std::string>& parts, const char* separator) {
    std::string out;
    for (const auto& part : parts) out += (out.empty() ? "" : separator) + part;
    return out;
}

std::string data_summary(const DataNeeds& needs) {
    std::vector<std::string> data;
    if (!needs.metrics.empty()) data.push_back(fmt::format("ncu({} metrics)", needs.metrics.size()));
    if (needs.sass) data.push_back("sass");
    if (needs.ptxas) data.push_back("ptxas");
    if (needs.source_page) data.push_back("source-page");
    if (needs.timeline) data.push_back("timeline");
    if (needs.occupancy) data.push_back("occupancy");
    return data.empty() ? "-" : joined(data, ",");
}

}  // namespace

std::string render_tool_list(const ToolRegistry& registry) {
    std::string out;
    for (const MicroTool* tool : registry.all()) {
        std::vector<std::string> classes;
        for (auto c : tool->classes()) classes.emplace_back(to_string(c));
        out += fmt::format("{:<28} classes={:<55} needs={}\n", tool->name(), joined(classes, ","), data_summary(tool->needs()));
    }
    return out;
}

nlohmann::json tool_list_json(const ToolRegistry& registry) {
    nlohmann::json tools = nlohmann::json::array();
    for (const MicroTool* tool : registry.all()) {
        nlohmann::json classes = nlohmann::json::array();
        for (auto c : tool->classes()) classes.push_back(to_string(c));
        auto needs = tool->needs();
        tools.push_back({{"name", tool->name()},
                         {"classes", classes},
                         {"metrics", needs.metrics},
                         {"sass", needs.sass},
                         {"ptxas", needs.ptxas},
                         {"source_page", needs.source_page},
                         {"timeline", needs.timeline},
                         {"occupancy", needs.occupancy}});
    }
    return {{"schema", "kernelpro.tools/1"}, {"stage1_metrics", roofline_metric_names()}, {"tools", tools}};
}

}  // namespace kp::analysis
