#include "search/objective.h"

#include <fmt/format.h>

namespace kp::search {

PluginRegistry<Objective>& objectives() {
    static PluginRegistry<Objective> registry("objective");
    return registry;
}

const Objective& objective_of(const ObjectiveRule& rule) {
    if (const Objective* objective = objectives().find(rule.name)) return *objective;
    return *objectives().find("time");
}

Status check_objective(const ObjectiveRule& rule) {
    if (auto objective = objectives().lookup(rule.name); !objective) return objective.error();
    if (!(rule.max_slowdown >= 0 && rule.max_slowdown <= 1))
        return make_error(fmt::format("max_slowdown must be a fraction between 0 and 1 (2% is 0.02), got {}", rule.max_slowdown));
    return {};
}

double objective_gain(const ObjectiveRule& rule, const EvaluationOutcome& outcome, const EvaluationOutcome* baseline,
                      double speedup) {
    if (!outcome.correct()) return 0.0;
    const Objective& objective = objective_of(rule);
    if (!baseline || speedup <= 0) return speedup;
    const bool measured = outcome.joules_per_call && *outcome.joules_per_call > 0 && baseline->joules_per_call &&
                          *baseline->joules_per_call > 0;
    if (objective.needs_energy && !measured) return speedup;
    return objective.gain(rule, outcome, *baseline, speedup);
}

std::optional<size_t> best_kernel(const ObjectiveRule& rule, const std::vector<RankedKernel>& kernels) {
    std::optional<size_t> fastest, best;
    for (size_t i = 0; i < kernels.size(); ++i)
        if (!fastest || kernels[i].speedup > kernels[*fastest].speedup) fastest = i;
    if (!fastest) return fastest;
    const Objective& objective = objective_of(rule);
    const double slowest_allowed = objective.matched_speed ? kernels[*fastest].speedup / (1.0 + rule.max_slowdown) : 0.0;
    for (size_t i = 0; i < kernels.size(); ++i) {
        if (kernels[i].speedup < slowest_allowed || (objective.needs_energy && !kernels[i].has_energy)) continue;
        if (!best || kernels[i].gain > kernels[*best].gain) best = i;
    }
    return best ? best : fastest;
}

std::string describe_objective(const ObjectiveRule& rule) {
    const Objective& objective = objective_of(rule);
    std::string text = objective.name + " (" + objective.summary;
    if (objective.matched_speed) text += fmt::format(", within {:.1f}% of the fastest", 100 * rule.max_slowdown);
    return text + ")";
}

std::string objective_note(const ObjectiveRule& rule, const EvaluationOutcome& outcome) {
    std::string note = "objective: " + describe_objective(rule);
    if (outcome.median_seconds) note += fmt::format("; time {:.2f} us per call", *outcome.median_seconds * 1e6);
    if (outcome.joules_per_call) note += fmt::format("; energy {:.4g} mJ per call", *outcome.joules_per_call * 1e3);
    const auto& e = outcome.details.value("energy", nlohmann::json::object());
    if (e.is_object()) {
        if (e.contains("average_watts") && e["average_watts"].is_number()) note += fmt::format(", {:.0f} W while running", e["average_watts"].get<double>());
        if (e.contains("sm_clock_mhz") && e["sm_clock_mhz"].is_number()) note += fmt::format(", SM clock {} MHz", e["sm_clock_mhz"].get<double>());
        if (e.value("throttled_windows", 0) > 0) note += fmt::format(", throttled in {} windows", e.value("throttled_windows", 0));
        if (e.contains("idle_watts") && e["idle_watts"].is_number()) note += fmt::format(" (idle {:.0f} W)", e["idle_watts"].get<double>());
    }
    // Energy follows the work done: DRAM traffic, instructions, and how long the SMs stay powered.
    const auto& diagnosis = outcome.profiles.value("diagnosis", nlohmann::json::object());
    if (objective_of(rule).needs_energy && diagnosis.is_object() && diagnosis.contains("roofline")) {
        const auto& r = diagnosis["roofline"];
        if (r.contains("bytes") && r["bytes"].is_object())
            note += fmt::format("; DRAM {:.3g} bytes per call", r["bytes"].value("dram", 0.0));
        if (r.contains("sm_clock_hz") && r["sm_clock_hz"].is_number()) note += fmt::format(", profiled at {:.0f} MHz", r["sm_clock_hz"].get<double>() / 1e6);
    }
    return note;
}

}  // namespace kp::search
