#include "search/search_config.h"

#include "search/selection_policy.h"

namespace kp::search {

namespace {

// Runs stored before stop rules had fixed fields for their limits (null: off).
void read_legacy_stop_limits(const nlohmann::json& object, StopLimits& limits) {
    auto read = [&](const nlohmann::json& holder, const char* field, const char* rule) {
        if (!holder.is_object() || !holder.contains(field)) return;
        if (holder[field].is_null()) limits.erase(rule);
        else limits[rule] = holder[field].get<double>();
    };
    if (object.contains("budgets")) {
        const auto& budgets = object["budgets"];
        read(budgets, "max_evaluations", "evaluation_budget");
        read(budgets, "max_wall_seconds", "wall_time_budget");
        read(budgets, "max_llm_tokens", "token_budget");
        read(budgets, "max_cost_usd", "cost_budget");
    }
    read(object, "target_roofline_fraction", "roofline_target");
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
        {"strategy", config.strategy},
        {"seed", config.seed},
        {"objective", config.objective.name},
        {"max_slowdown", config.objective.max_slowdown},
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
        {"parallel_evaluations", config.parallel_evaluations},
        {"stop_limits", config.stop_limits},
        {"memory_enabled", config.memory_enabled},
        {"memory_lessons_per_scope", config.memory_lessons_per_scope},
        {"feedback", feedback_kind_name(config.feedback)},
    };
}

Result<SearchConfig> config_from_json(const nlohmann::json& object) {
    if (!object.is_object()) return make_error("search config is not a JSON object");
    SearchConfig config;
    try {
        config.strategy = object.value("strategy", config.strategy);
        config.seed = object.value("seed", config.seed);
        config.objective.name = object.value("objective", config.objective.name);
        config.objective.max_slowdown = object.value("max_slowdown", config.objective.max_slowdown);
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
        config.parallel_evaluations = object.value("parallel_evaluations", config.parallel_evaluations);
        if (object.contains("stop_limits")) config.stop_limits = object["stop_limits"].get<StopLimits>();
        else read_legacy_stop_limits(object, config.stop_limits);
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
    if (config.parallel_evaluations < 1 || config.parallel_evaluations > 1024)
        return make_error("search config: parallel_evaluations must be 1 to 1024, got " + std::to_string(config.parallel_evaluations));
    if (auto policy = selection_policies().lookup(config.strategy); !policy)
        return make_error("search config: " + policy.error().message);
    if (auto objective = check_objective(config.objective); !objective)
        return make_error("search config: " + objective.error().message);
    if (auto limits = check_stop_limits(config.stop_limits); !limits)
        return make_error("search config: " + limits.error().message);
    if (config.reward.min_speedup <= 0 || config.reward.max_speedup <= config.reward.min_speedup)
        return make_error("search config: reward needs 0 < min_speedup < max_speedup");
    if (config.dead_end_window < 1) return make_error("search config: dead_end_window must be at least 1");
    return config;
}

}  // namespace kp::search
