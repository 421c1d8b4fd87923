// SearchDriver: starting, resuming, the main loop and how a run ends.
#include "search/search_driver.h"

#include <algorithm>
#include <chrono>

#include "common/utf8.h"
#include "search/selection.h"

namespace kp::search {

namespace {

double monotonic_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

store::NodeRecord baseline_record(const TaskIdentity& task, const Candidate& baseline) {
    store::NodeRecord node;
    node.proposal_kind = "baseline";
    node.source = baseline.source;
    node.params_json = dump_json(params_to_json(baseline.params));
    node.evaluation_key = evaluation_key(task, baseline);
    return node;
}

}  // namespace

Result<SearchOutcome> SearchDriver::start(const TaskIdentity& task, const Candidate& baseline,
                                          const SearchConfig& config, const std::optional<RunRecipe>& recipe) {
    // Round-trip the config so a bad value fails here, not on resume.
    auto checked = config_from_json(config_to_json(config));
    if (!checked) return checked.error();
    tree_ = SearchTree{};
    task_ = task;
    config_ = *checked;
    baseline_median_seconds_.reset();
    elapsed_before_session_ = 0.0;
    llm_tokens_ = 0;
    cost_usd_ = 0.0;
    stop_requested_.store(false);
    session_start_ = monotonic_seconds();

    auto node = baseline_record(task, baseline);
    const std::string recipe_json = recipe ? dump_json(recipe_to_json(*recipe)) : "";
    auto run_id = store_.create_run({task.name, task.fingerprint, dump_json(config_to_json(config_)), recipe_json}, node);
    if (!run_id) return run_id.error();
    run_id_ = *run_id;
    tree_.add_root(baseline, node.evaluation_key);
    return run_loop();
}

Result<SearchOutcome> SearchDriver::resume(std::int64_t run_id, const ResumeOptions& options) {
    auto run = store_.load_run(run_id);
    if (!run) return run.error();
    auto parsed = nlohmann::json::parse(run->config_json, nullptr, /*allow_exceptions=*/false);
    auto config = config_from_json(parsed);
    if (!config) return make_error("run " + std::to_string(run_id) + ": " + config.error().message);
    run_id_ = run_id;
    task_ = {run->task_name, run->task_fingerprint};
    config_ = *config;
    if (!options.stop_limits.empty()) {
        for (const auto& [name, limit] : options.stop_limits) {
            if (limit == 0) config_.stop_limits.erase(name);
            else config_.stop_limits[name] = limit;
        }
        if (auto checked = check_stop_limits(config_.stop_limits); !checked) return checked.error();
        if (auto status = store_.update_run_config(run_id_, dump_json(config_to_json(config_))); !status)
            return status.error();
    }
    stop_requested_.store(false);
    elapsed_before_session_ = run->elapsed_seconds;
    session_start_ = monotonic_seconds();
    auto totals = store_.llm_totals(run_id_);
    if (!totals) return totals.error();
    llm_tokens_ = totals->tokens();
    cost_usd_ = totals->cost_usd;
    if (auto status = restore_from_store(); !status) return status.error();
    if (auto status = store_.set_run_status(run_id_, store::RunStatus::running, "", current_spend().elapsed_seconds);
        !status)
        return status.error();
    return run_loop();
}

SearchOutcome SearchDriver::run_loop() {
    const size_t width = static_cast<size_t>(std::max(1, config_.parallel_evaluations));
    // Pending nodes first: the baseline of a new run, or whatever was in flight when the last
    // session died. Node order is creation order, the order an uninterrupted run takes them in.
    std::vector<std::int64_t> pending;
    for (const auto& node : tree_.nodes())
        if (!node.evaluated()) pending.push_back(node.id);
    for (size_t at = 0; at < pending.size(); at += width) {
        std::vector<std::int64_t> round(pending.begin() + static_cast<std::ptrdiff_t>(at),
                                        pending.begin() + static_cast<std::ptrdiff_t>(std::min(pending.size(), at + width)));
        if (auto failure = evaluate_round(round)) return finish(failure->reason, failure->message);
    }
    while (true) {
        // One round: up to `width` new children, each selected with the earlier ones pending (a
        // pending child fills its widening slot, and only evaluated children are descended into).
        std::vector<std::int64_t> round;
        std::optional<StopReason> end;
        std::string end_detail;
        while (round.size() < width) {
            if (stop_requested_.load()) return finish({StopKind::stop_requested}, "");
            // Children already in this round count as spent: a budget is never overshot.
            SearchSpend spend = current_spend();
            spend.evaluations += static_cast<std::int64_t>(round.size());
            // Time targets (the roofline target) end only time runs: a kernel at the time floor may
            // still waste energy.
            if (auto rule = reached_stop_rule(config_.stop_limits, spend, tree_, objective_of(config_.objective).time_target)) {
                end = StopReason{StopKind::stop_rule, *rule};
                break;
            }
            auto choice = select_for_expansion(tree_, config_);
            persist_closures();
            if (!choice) {
                end = StopReason{StopKind::search_exhausted};
                break;
            }
            auto child = expand(choice->node_id, choice->parameter_moves_wanted, choice->rewrites_wanted);
            if (!child) {
                end = StopReason{StopKind::proposer_error};
                end_detail = child.error().message;
                break;
            }
            if (!*child) continue;  // the proposer had nothing of the wanted kind; selection sees the new state
            round.push_back(**child);
        }
        if (auto failure = evaluate_round(round)) return finish(failure->reason, failure->message);
        // An exhausted search or a reached budget is looked at again once the round's results are in.
        if (end && (round.empty() || end->kind == StopKind::proposer_error)) return finish(*end, end_detail);
    }
}

SearchOutcome SearchDriver::finish(StopReason reason, const std::string& detail) {
    SearchOutcome outcome;
    outcome.run_id = run_id_;
    outcome.stop_reason = reason;
    outcome.stop_detail = detail;
    outcome.spend = current_spend();
    outcome.nodes = tree_.size();
    outcome.objective = config_.objective;
    if (auto best = tree_.best_node(config_.objective)) {
        const auto& node = tree_.node(*best);
        outcome.best_node_id = *best;
        outcome.best_candidate = node.candidate;
        outcome.best_speedup_over_baseline = node.speedup_over_baseline;
        outcome.best_speedup = node.outcome->speedup;
    }
    outcome.best_roofline_fraction = tree_.best_roofline_fraction();
    store::RunStatus status = store::RunStatus::finished;
    if (reason.kind == StopKind::stop_requested) status = store::RunStatus::interrupted;
    if (reason.kind == StopKind::evaluator_error || reason.kind == StopKind::proposer_error ||
        reason.kind == StopKind::store_error)
        status = store::RunStatus::failed;
    std::string stored_reason = reason.name();
    if (!detail.empty()) stored_reason += ": " + detail;
    // Best effort: if the store itself is what failed, the run simply stays `running` and resume
    // still works from the last committed evaluation.
    (void)store_.set_run_status(run_id_, status, stored_reason, outcome.spend.elapsed_seconds);
    return outcome;
}

SearchSpend SearchDriver::current_spend() const {
    SearchSpend spend;
    spend.evaluations = tree_.evaluated_count();
    spend.elapsed_seconds = elapsed_before_session_ + (monotonic_seconds() - session_start_);
    spend.llm_tokens = llm_tokens_;
    spend.cost_usd = cost_usd_;
    return spend;
}

void SearchDriver::persist_closures() {
    // Close reasons in the store are for reports only (resume recomputes them), so a failure to
    // write one is not worth stopping the run for.
    for (auto id : tree_.take_newly_closed()) {
        const auto& node = tree_.node(id);
        (void)store_.set_close_reason(run_id_, id, node.closed() ? node.close_reason : node.dead_end_reason);
    }
}

}  // namespace kp::search
