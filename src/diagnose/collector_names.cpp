#include "diagnose/collector_names.h"

namespace kp::diagnose {

const std::set<std::string>& all_profile_collectors() {
    static const std::set<std::string> names = {"ncu", "source", "sass", "ptxas", "timeline", "occupancy"};
    return names;
}

const std::set<std::string>& default_profile_collectors() {
    static const std::set<std::string> names = {"ncu", "sass", "ptxas", "timeline", "occupancy"};
    return names;
}

std::string known_collector_list() { return "ncu, source, sass, ptxas, timeline, occupancy"; }

Result<std::pair<std::set<std::string>, bool>> apply_collector_list(const std::vector<std::string>& items,
                                                                    const std::set<std::string>& base) {
    std::set<std::string> result = base;
    bool replaced = false, timeline_named = false;
    for (const std::string& item : items) {
        if (item.empty()) continue;
        const bool add = item.front() == '+', remove = item.front() == '-';
        std::string name = add || remove ? item.substr(1) : item;
        if (!all_profile_collectors().count(name))
            return make_error("unknown collector '" + name + "' (known: " + known_collector_list() + ")");
        if (name == "timeline" && !remove) timeline_named = true;
        if (remove) result.erase(name);
        else if (add) result.insert(name);
        else {
            if (!replaced) result.clear();
            replaced = true;
            result.insert(name);
        }
    }
    return std::make_pair(result, timeline_named);
}

}  // namespace kp::diagnose
