#include "search/search_config.h"

namespace kp::search {

const char* search_strategy_name(SearchStrategy strategy) {
    return strategy == SearchStrategy::greedy ? "greedy" : "mcts";
}

std::optional<SearchStrategy> parse_search_strategy(const std::string& text) {
    if (text == "mcts") return SearchStrategy::mcts;
    if (text == "greedy") return SearchStrategy::greedy;
    return std::nullopt;
}

namespace {

template <typename T>
nlohmann::json optional_json(const std::optional<T>& value) {
    return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

template <typename T>
void read_optional(const nlohmann::json& object, const char* name, std::optional<T>& target) {
    if (!object.contains(name)) return;
    if (object[name].is_null())
        target.reset();
    else
        target = object[name].get<T>();
}

nlohmann::json widening_json(const WideningRule& rule) { return {{"k", rule.k}, {"alpha", rule.alpha}}; }

void read_widening(const nlohmann::json& object, const char* name, WideningRule& rule) {
    if (!object.contains(name)) return;
    rule.k = object[name].value("k", rule.k);
    rule.alpha = object[name].value("alpha", rule.alpha);
}

}  // namespace

nlohmann::json config_to_json(const SearchConfig& config) {
    nlohmann::json repairable = nlohmann::json::array();
    for (auto status : config.repairable) repairable.push_back(status_class_name(status));
    return {
        {"strategy", search_strategy_name(config.strategy)},
        {"seed", config.seed},
        {"parameter_widening", widening_json(config.parameter_widening)},
        {"rewrite_widening", widening_json(config.rewrite_widening)},
        {"exploration", config.exploration},
        {"max_backup_weight", config.max_backup_weight},
        {"reward",
         {{"min_speedup", config.reward.min_speedup},
          {"max_speedup", config.reward.max_speedup},
          {"correct_floor", config.reward.correct_floor}}},
        {"dead_end_window", config.dead_end_window},
        {"min_improvement", config.min_improvement},
        {"repairable", repairable},
        {"max_repair_chain", config.max_repair_chain},
        {"max_proposer_calls_per_node", config.max_proposer_calls_per_node},
        {"budgets",
         {{"max_evaluations", optional_json(config.budgets.max_evaluations)},
          {"max_wall_seconds", optional_json(config.budgets.max_wall_seconds)},
          {"max_llm_tokens", optional_json(config.budgets.max_llm_tokens)},
          {"max_cost_usd", optional_json(config.budgets.max_cost_usd)}}},
        {"target_roofline_fraction", optional_json(config.target_roofline_fraction)},
        {"memory_enabled", config.memory_enabled},
        {"memory_lessons_per_scope", config.memory_lessons_per_scope},
        {"feedback", feedback_kind_name(config.feedback)},
    };
}

Result<SearchConfig> config_from_json(const nlohmann::json& object) {
    if (!object.is_object()) return make_error("search config is not a JSON object");
    SearchConfig config;
    try {
        if (object.contains("strategy")) {
            auto strategy = parse_search_strategy(object["strategy"].get<std::string>());
            if (!strategy) return make_error("unknown search strategy " + object["strategy"].dump());
            config.strategy = *strategy;
        }
        config.seed = object.value("seed", config.seed);
        read_widening(object, "parameter_widening", config.parameter_widening);
        read_widening(object, "rewrite_widening", config.rewrite_widening);
        config.exploration = object.value("exploration", config.exploration);
        config.max_backup_weight = object.value("max_backup_weight", config.max_backup_weight);
        if (object.contains("reward")) {
            const auto& reward = object["reward"];
            config.reward.min_speedup = reward.value("min_speedup", config.reward.min_speedup);
            config.reward.max_speedup = reward.value("max_speedup", config.reward.max_speedup);
            config.reward.correct_floor = reward.value("correct_floor", config.reward.correct_floor);
        }
        config.dead_end_window = object.value("dead_end_window", config.dead_end_window);
        config.min_improvement = object.value("min_improvement", config.min_improvement);
        if (object.contains("repairable")) {
            config.repairable.clear();
            for (const auto& name : object["repairable"]) {
                auto status = parse_status_class(name.get<std::string>());
                if (!status) return make_error("unknown status class " + name.dump() + " in repairable");
                config.repairable.insert(*status);
            }
        }
        config.max_repair_chain = object.value("max_repair_chain", config.max_repair_chain);
        config.max_proposer_calls_per_node = object.value("max_proposer_calls_per_node", config.max_proposer_calls_per_node);
        if (object.contains("budgets")) {
            const auto& budgets = object["budgets"];
            read_optional(budgets, "max_evaluations", config.budgets.max_evaluations);
            read_optional(budgets, "max_wall_seconds", config.budgets.max_wall_seconds);
            read_optional(budgets, "max_llm_tokens", config.budgets.max_llm_tokens);
            read_optional(budgets, "max_cost_usd", config.budgets.max_cost_usd);
        }
        read_optional(object, "target_roofline_fraction", config.target_roofline_fraction);
        config.memory_enabled = object.value("memory_enabled", config.memory_enabled);
        config.memory_lessons_per_scope = object.value("memory_lessons_per_scope", config.memory_lessons_per_scope);
        if (object.contains("feedback")) {
            auto feedback = parse_feedback_kind(object["feedback"].get<std::string>());
            if (!feedback) return make_error("unknown feedback kind " + object["feedback"].dump());
            config.feedback = *feedback;
        }
    } catch (const nlohmann::json::exception& error) {
        return make_error(std::string("malformed search config: ") + error.what());
    }
    if (config.reward.min_speedup <= 0 || config.reward.max_speedup <= config.reward.min_speedup)
        return make_error("search config: reward needs 0 < min_speedup < max_speedup");
    if (config.dead_end_window < 1) return make_error("search config: dead_end_window must be at least 1");
    return config;
}

}  // namespace kp::search
