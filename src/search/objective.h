// Objectives, registered by name: what the search optimizes. `SearchConfig::objective` names one
// (`--objective NAME`, stored with the run so a resumed run keeps it). Every place that ranks
// kernels (reward, dead-end pruning, greedy refinement, the best node) reads a node's gain over
// the baseline from its objective. Built in, one file each in objectives/: time (the default),
// energy (joules per call at matched speed) and edp (the energy-delay product). A new objective is
// one file there ending in KP_REGISTER_OBJECTIVE(...) and one kp_add_plugin line in
// src/search/CMakeLists.txt.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/plugin_registry.h"
#include "search/evaluation_outcome.h"

namespace kp::search {

// The run's choice, as stored in its config.
struct ObjectiveRule {
    std::string name = "time";
    // A kernel may be at most this much slower than the fastest correct one found (0.02: 2%) and
    // still win ("matched speed"), for objectives that say so.
    double max_slowdown = 0.02;
};

struct Objective {
    std::string name;
    std::string summary;          // one line, for --help, summaries and proposers
    bool needs_energy = false;    // candidates' joules per call are measured; nodes without it never win
    bool matched_speed = false;   // the winner is picked among kernels within max_slowdown of the fastest
    bool time_target = false;     // time stop rules (the roofline target) apply
    // The gain over the baseline (> 1 when better) of a correct kernel with this speedup; with
    // needs_energy, both sides have joules per call (objective_gain checks that).
    std::function<double(const ObjectiveRule&, const EvaluationOutcome& outcome, const EvaluationOutcome& baseline,
                         double speedup)>
        gain;
};

PluginRegistry<Objective>& objectives();

// The rule's objective; time when the name is unknown (check_objective refused it when the config
// was loaded).
const Objective& objective_of(const ObjectiveRule& rule);

// The name is registered and max_slowdown is a fraction in [0, 1].
Status check_objective(const ObjectiveRule& rule);

// The node's gain over the baseline under the rule: 0 for a failed kernel; the speedup when the
// objective needs energy and either side lacks it.
double objective_gain(const ObjectiveRule& rule, const EvaluationOutcome& outcome, const EvaluationOutcome* baseline,
                      double speedup_over_baseline);

// A correct kernel as the best-kernel rule sees it.
struct RankedKernel {
    double speedup = 0;       // over the baseline
    double gain = 0;          // objective_gain
    bool has_energy = false;  // joules per call measured
};

// The index of the best of `kernels` (all correct) under the rule: the highest gain (earliest on
// ties), among the kernels within max_slowdown of the fastest when the objective matches speed, and
// among those with energy when it needs energy; the fastest when none qualifies. The search's best
// node and the report's use this one rule.
std::optional<size_t> best_kernel(const ObjectiveRule& rule, const std::vector<RankedKernel>& kernels);

// "energy (joules per call within 2.0% of the fastest)": for summaries and `runs show`.
std::string describe_objective(const ObjectiveRule& rule);

// One line for proposers (the tuner's rationale, the LLM's roofline block): what is optimized and
// the node's energy evidence (joules, watts, clocks, throttling, DRAM bytes) next to its time.
std::string objective_note(const ObjectiveRule& rule, const EvaluationOutcome& outcome);

}  // namespace kp::search

#define KP_REGISTER_OBJECTIVE(...) KP_REGISTER_PLUGINS(::kp::search::Objective, ::kp::search::objectives(), __VA_ARGS__)
