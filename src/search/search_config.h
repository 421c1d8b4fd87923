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
#include "search/proposer.h"

namespace kp::search {

enum class SearchStrategy {
    mcts,    // UCT with progressive widening (the default)
    greedy,  // ablation: always refine the best correct kernel so far
};
const char* search_strategy_name(SearchStrategy strategy);
std::optional<SearchStrategy> parse_search_strategy(const std::string& text);

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

struct SearchBudgets {
    std::optional<std::int64_t> max_evaluations = 64;  // the baseline counts as one
    std::optional<double> max_wall_seconds;
    std::optional<std::int64_t> max_llm_tokens;         // input + output
    std::optional<double> max_cost_usd;
};

struct SearchConfig {
    SearchStrategy strategy = SearchStrategy::mcts;
    std::uint64_t seed = 0;

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

    SearchBudgets budgets;
    // Early stop once a correct kernel reaches this fraction of its roofline floor.
    std::optional<double> target_roofline_fraction = 0.9;

    bool memory_enabled = true;
    int memory_lessons_per_scope = 8;  // this run's and other runs' lessons, each
    FeedbackKind feedback = FeedbackKind::tool_findings;
};

nlohmann::json config_to_json(const SearchConfig& config);
// Missing fields keep their defaults, so configs stored by older versions still load.
Result<SearchConfig> config_from_json(const nlohmann::json& object);

}  // namespace kp::search
