// Every constant of the search, with the defaults docs/search.md justifies. The whole config is
// stored with the run (JSON), so resume continues with exactly the same settings.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "search/evaluation_outcome.h"
#include "search/objective.h"
#include "search/proposer.h"
#include "search/stop_rule.h"

namespace kp::search {

// Progressive widening: a node visited N times may have ceil(k * N^alpha) children of a kind.
struct WideningRule {
    double k = 1.0;
    double alpha = 0.5;
};

// Reward = clamp((ln s - ln min) / (ln max - ln min), 0, 1) for a correct kernel with speedup s over
// the baseline, raised to at least correct_floor; a failed or wrong kernel earns exactly 0.
struct RewardCalibration {
    double min_speedup = 0.25;
    double max_speedup = 16.0;
    double correct_floor = 0.01;
};

struct SearchConfig {
    std::string strategy = "mcts";  // a registered selection policy (selection_policy.h)
    std::uint64_t seed = 0;
    ObjectiveRule objective;  // what "better" means: time, energy at matched speed, or EDP

    // Asymmetric branching: cheap parameter moves widen fast, expensive rewrites slowly.
    WideningRule parameter_widening{1.0, 0.5};
    WideningRule rewrite_widening{0.5, 0.5};

    double exploration = 0.2;         // UCT constant c, for rewards in [0, 1]
    double max_backup_weight = 0.75;  // node value = (1 - w) * mean reward + w * max reward
    RewardCalibration reward;

    // Dead-end pruning: close a node when its last `dead_end_window` evaluated children all failed
    // or improved on it by less than `min_improvement` (relative). The baseline is never closed.
    int dead_end_window = 3;
    double min_improvement = 0.01;
    // Failed nodes are leaves, except these classes, which a proposer may repair: such a node is
    // expanded right away, once (its repair attempt), and later only as UCT sees fit; a chain of
    // more than `max_repair_chain` consecutive failures is closed.
    std::set<StatusClass> repairable = {StatusClass::compile_error};
    int max_repair_chain = 2;

    int max_proposer_calls_per_node = 6;

    // Candidates evaluated at once (optimize --gpus: one per GPU). Each round selects and expands
    // this many nodes (pending children steer the later selections away), evaluates them
    // together and takes their results in node order, so the tree depends on the seed and this
    // width, not on which GPU finished first. 1: the classic one-at-a-time loop.
    int parallel_evaluations = 1;

    // Budgets and early stops, by stop rule (stop_rule.h): by default 64 evaluations and 90% of
    // the roofline floor. Filled from the registry, so no SearchConfig may be built before main().
    StopLimits stop_limits = default_stop_limits();

    bool memory_enabled = true;
    int memory_lessons_per_scope = 8;  // this run's and other runs' lessons, each
    FeedbackKind feedback = FeedbackKind::tool_findings;
};

nlohmann::json config_to_json(const SearchConfig& config);
// Missing fields keep their defaults, so configs stored by older versions still load.
Result<SearchConfig> config_from_json(const nlohmann::json& object);

}  // namespace kp::search
