#include "search/proposer_registry.h"

#include <set>

#include "search/combined_proposer.h"

namespace kp::search {

PluginRegistry<ProposerPlugin>& proposers() {
    static PluginRegistry<ProposerPlugin> registry("proposer");
    return registry;
}

Status check_proposer_names(const std::vector<std::string>& names) {
    if (names.empty()) return make_error("no proposer chosen (registered: " + proposers().joined_names() + ")");
    std::set<std::string> seen;
    for (const auto& name : names) {
        if (auto found = proposers().lookup(name); !found) return found.error();
        if (!seen.insert(name).second) return make_error("proposer '" + name + "' is listed twice");
    }
    return {};
}

Status check_proposers_environment(const std::vector<std::string>& names, const ProposerContext& context) {
    for (const auto& name : names) {
        const ProposerPlugin* plugin = proposers().find(name);
        if (!plugin || !plugin->check_environment) continue;
        if (auto ready = plugin->check_environment(context); !ready)
            return make_error("proposer " + name + ": " + ready.error().message);
    }
    return {};
}

Result<std::unique_ptr<Proposer>> make_proposers(const std::vector<std::string>& names, ProposerContext& context) {
    if (auto checked = check_proposer_names(names); !checked) return checked.error();
    std::vector<std::unique_ptr<Proposer>> made;
    for (const auto& name : names) {
        auto proposer = proposers().find(name)->make(context);
        if (!proposer) return make_error("proposer " + name + ": " + proposer.error().message);
        made.push_back(std::move(*proposer));
    }
    if (made.size() == 1) return std::move(made.front());
    return std::unique_ptr<Proposer>(std::make_unique<CombinedProposer>(std::move(made)));
}

void adjust_config_for(const std::vector<std::string>& names, SearchConfig& config) {
    for (const auto& name : names)
        if (const ProposerPlugin* plugin = proposers().find(name); plugin && plugin->adjust_config)
            plugin->adjust_config(config);
}

}  // namespace kp::search
