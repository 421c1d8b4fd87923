#include "autoprofiler/profile_cost.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>

#include <fmt/format.h>

#include "gpu/helper_paths.h"
#include "profile/cupti_counter_collector.h"

namespace kp::autoprofiler {

namespace {

// The counted metrics of `actions` (sorted, each once), less `without`.
std::vector<std::string> counters_of(const std::vector<std::string>& actions, const std::vector<std::string>& without = {}) {
    std::set<std::string> all;
    for (const auto& a : actions)
        for (const auto& m : counters_of_action(a)) all.insert(m);
    for (const auto& m : without) all.erase(m);
    return {all.begin(), all.end()};
}

// One collection's passes: CUPTI's plan for its counters, else the actions' passes alone, added.
int collection_passes(const std::vector<std::string>& actions, const std::vector<std::string>& counters, const CostTable& costs) {
    if (counters.empty()) return 0;
    if (auto planned = planned_passes(costs.chip, counters)) return *planned;
    int sum = 0;
    for (const auto& a : actions)
        if (!counters_of_action(a).empty()) sum += costs.of(a).passes;
    return sum;
}

}  // namespace

std::optional<int> planned_passes(const std::string& chip, const std::vector<std::string>& counters) {
    if (chip.empty() || counters.empty()) return std::nullopt;
    static std::mutex mutex;
    static std::map<std::string, std::optional<int>> planned;
    static const auto library = gpu::find_helper("libkp_counters.so");
    if (!library) return std::nullopt;
    const std::string key = chip + "|" + fmt::format("{}", fmt::join(counters, ","));
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = planned.find(key); it != planned.end()) return it->second;
    std::optional<int> passes;
    if (auto plan = profile::plan_counters(*library, chip, counters); plan && plan->unsupported.empty() && plan->passes > 0)
        passes = plan->passes;
    planned.emplace(key, passes);
    return passes;
}

ActionCost profile_cost(const std::vector<std::string>& taken, CollectionShape shape, const CostTable& costs) {
    const bool on_gpu = std::any_of(taken.begin(), taken.end(), [&](const auto& a) { return runs_in_collection(a, costs.of(a)); });
    if (!on_gpu && shape == CollectionShape::one_run) return {};
    // The first collection: the roofline's counters always (they classify the kernel and give the
    // launch facts); a one-run profile counts every taken tool's there too.
    std::vector<std::string> first{kRooflineAction}, later;
    for (const auto& a : taken)
        if (a != kRooflineAction && !counters_of_action(a).empty()) (shape == CollectionShape::one_run ? first : later).push_back(a);
    ActionCost cost;
    cost.seconds = costs.process_seconds + costs.collection_seconds;
    cost.passes = collection_passes(first, counters_of(first), costs);
    // A follow-up in the same worker for the counters the first did not hold.
    const auto extra = counters_of(later, counters_of_action(kRooflineAction));
    if (!extra.empty()) {
        cost.seconds += costs.collection_seconds;
        cost.passes += collection_passes(later, extra, costs);
    }
    cost.seconds += cost.passes * costs.seconds_per_pass;
    // The sampled call and the traced call, each once whatever asks for it.
    if (std::find(taken.begin(), taken.end(), kLinesAction) != taken.end()) cost.seconds += costs.of(kLinesAction).seconds;
    double trace = 0;
    for (const auto& a : taken)
        if (reads_the_timeline(a)) trace = std::max(trace, costs.of(a).seconds);
    cost.seconds += trace;
    return cost;
}

}  // namespace kp::autoprofiler
