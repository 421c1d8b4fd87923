// SearchDriver: one iteration's steps: ask the proposer, expand, evaluate, absorb the result.
#include <algorithm>
#include <future>

#include "analysis/feedback.h"
#include "common/utf8.h"
#include "search/node_closing.h"
#include "search/reward.h"
#include "search/search_driver.h"
#include "search/selection.h"

namespace kp::search {

namespace {

// Proposers get a seed that depends only on the run seed, the node and the call: the same
// question always gets the same randomness, in a resumed run too.
std::uint64_t proposal_seed(std::uint64_t run_seed, std::int64_t node_id, int call_index) {
    std::uint64_t x = run_seed * 0x100000001B3ull ^ static_cast<std::uint64_t>(node_id) * 0x9E3779B97F4A7C15ull ^
                      static_cast<std::uint64_t>(call_index + 1) * 0xC2B2AE3D27D4EB4Full;
    x ^= x >> 33;
    x *= 0xFF51AFD7ED558CCDull;
    x ^= x >> 33;
    return x;
}

bool kind_wanted(ProposalKind kind, bool parameter_moves_wanted, bool rewrites_wanted) {
    return kind == ProposalKind::rewrite ? rewrites_wanted : parameter_moves_wanted;
}

}  // namespace

NodeView SearchDriver::view_of(std::int64_t id) const {
    const auto& node = tree_.node(id);
    NodeView view;
    view.node_id = id;
    view.parent_id = node.parent;
    view.origin = node_origin_name(node.origin);
    view.candidate = node.candidate;
    view.rationale = node.rationale;
    view.evaluation = node.outcome;
    view.speedup_over_baseline = node.speedup_over_baseline;
    view.depth = node.depth;
    return view;
}

Status SearchDriver::ask_proposer(std::int64_t node_id, bool parameter_moves_wanted, bool rewrites_wanted) {
    auto& node = tree_.node(node_id);
    ProposalRequest request;
    request.task = task_;
    request.run_id = run_id_;
    request.node = view_of(node_id);
    for (auto ancestor : tree_.lineage(node_id)) request.lineage.push_back(view_of(ancestor));
    SearchMemory memory(store_, config_.memory_enabled, config_.memory_lessons_per_scope);
    auto lessons = memory.lessons_for(task_, run_id_, node.outcome ? &*node.outcome : nullptr);
    if (!lessons) return lessons.error();
    request.lessons = std::move(*lessons);
    request.parameter_moves_wanted = parameter_moves_wanted;
    request.rewrites_wanted = rewrites_wanted;
    request.call_index = node.proposer_calls;
    request.seed = proposal_seed(config_.seed, node_id, node.proposer_calls);
    request.feedback = config_.feedback;
    request.is_known = [this](const Candidate& candidate) { return tree_.knows_key(evaluation_key(task_, candidate)); };
    request.objective = config_.objective;
    if (node.outcome) request.objective_note = objective_note(config_.objective, *node.outcome);

    auto batch = proposer_.propose(request);
    if (!batch) return batch.error();

    std::vector<store::ProposalRecord> records;
    std::vector<QueuedProposal> queued;
    for (const auto& proposal : batch->proposals) {
        store::ProposalRecord record;
        record.kind = proposal_kind_name(proposal.kind);
        record.source = proposal.candidate.source;
        record.params_json = dump_json(params_to_json(proposal.candidate.params));
        record.rationale = proposal.rationale;
        record.evaluation_key = evaluation_key(task_, proposal.candidate);
        // The same experiment twice (in this call or the tree) is evaluated once: keep the first.
        record.state = tree_.knows_key(record.evaluation_key) ? store::ProposalState::duplicate
                                                                : store::ProposalState::queued;
        if (record.state == store::ProposalState::queued) tree_.remember_key(record.evaluation_key);
        records.push_back(record);
    }
    std::vector<store::LlmExchangeRecord> exchanges;
    for (const auto& exchange : batch->exchanges)
        exchanges.push_back({run_id_, node_id, exchange.agent, exchange.model, exchange.prompt, exchange.reply,
                             exchange.tokens_in, exchange.tokens_out, exchange.latency_seconds, exchange.cost_usd,
                             exchange.tool_calls});
    const int calls = node.proposer_calls + 1;
    // An empty answer closes the kinds that were asked for, and only those: a proposer asked for
    // parameter moves alone may still have rewrites.
    if (batch->proposals.empty()) {
        node.parameter_moves_exhausted |= parameter_moves_wanted;
        node.rewrites_exhausted |= rewrites_wanted;
    }
    const std::int64_t exhausted = (node.parameter_moves_exhausted ? store::ExhaustedKinds::parameter_moves : 0) |
                                   (node.rewrites_exhausted ? store::ExhaustedKinds::rewrites : 0);
    if (auto status = store_.add_proposals(run_id_, node_id, records, exchanges, calls, exhausted); !status)
        return status.error();

    node.proposer_calls = calls;
    for (const auto& exchange : batch->exchanges) {
        llm_tokens_ += exchange.tokens_in + exchange.tokens_out;
        cost_usd_ += exchange.cost_usd;
    }
    for (size_t i = 0; i < records.size(); ++i)
        if (records[i].state == store::ProposalState::queued)
            node.queue.push_back({records[i].id, batch->proposals[i], records[i].evaluation_key});
    return {};
}

Result<std::optional<std::int64_t>> SearchDriver::expand(std::int64_t node_id, bool parameter_moves_wanted,
                                                         bool rewrites_wanted) {
    auto find_wanted = [&]() {
        auto& queue = tree_.node(node_id).queue;
        return std::find_if(queue.begin(), queue.end(), [&](const QueuedProposal& queued) {
            return kind_wanted(queued.proposal.kind, parameter_moves_wanted, rewrites_wanted);
        });
    };
    auto pick = find_wanted();
    if (pick == tree_.node(node_id).queue.end()) {
        if (!proposer_callable(tree_.node(node_id), config_)) return std::optional<std::int64_t>{};
        if (auto status = ask_proposer(node_id, parameter_moves_wanted, rewrites_wanted); !status)
            return status.error();
        pick = find_wanted();
        if (pick == tree_.node(node_id).queue.end()) return std::optional<std::int64_t>{};
    }
    QueuedProposal chosen = *pick;
    tree_.node(node_id).queue.erase(pick);

    const std::int64_t child = tree_.add_child(node_id, chosen.proposal.kind, chosen.proposal.candidate,
                                               chosen.proposal.rationale, chosen.evaluation_key);
    store::NodeRecord record;
    record.run_id = run_id_;
    record.node_id = child;
    record.parent_id = node_id;
    record.proposal_kind = proposal_kind_name(chosen.proposal.kind);
    record.source = chosen.proposal.candidate.source;
    record.params_json = dump_json(params_to_json(chosen.proposal.candidate.params));
    record.rationale = chosen.proposal.rationale;
    record.evaluation_key = chosen.evaluation_key;
    if (auto status = store_.add_pending_node(record, chosen.store_id); !status) return status.error();
    return std::optional<std::int64_t>{child};
}

std::optional<SearchDriver::StepFailure> SearchDriver::evaluate_round(const std::vector<std::int64_t>& ids) {
    std::vector<EvaluationRequest> requests;
    for (auto id : ids) {
        const auto& node = tree_.node(id);
        requests.push_back({task_, run_id_, id, node.evaluation_key, node.candidate, node.rationale, id == 0});
    }
    std::vector<Result<EvaluationOutcome>> outcomes;
    if (requests.size() == 1) {
        outcomes.push_back(evaluator_.evaluate(requests.front()));
    } else {
        // The evaluator is shared by the round's threads (GpuEvaluator hands each one a GPU of its pool).
        std::vector<std::future<Result<EvaluationOutcome>>> running;
        for (const auto& request : requests)
            running.push_back(std::async(std::launch::async, [this, &request] { return evaluator_.evaluate(request); }));
        for (auto& r : running) outcomes.push_back(r.get());
    }
    for (size_t i = 0; i < ids.size(); ++i)
        if (auto failure = record_outcome(ids[i], outcomes[i])) return failure;
    return std::nullopt;
}

std::optional<SearchDriver::StepFailure> SearchDriver::record_outcome(std::int64_t id, const Result<EvaluationOutcome>& outcome) {
    if (!outcome) return StepFailure{{StopKind::evaluator_error}, outcome.error().message};

    absorb_evaluation(id, *outcome);
    const auto& evaluated = tree_.node(id);

    store::CompletedEvaluation completed;
    completed.evaluation.run_id = run_id_;
    completed.evaluation.node_id = id;
    completed.evaluation.evaluation_key = evaluated.evaluation_key;
    completed.evaluation.status_class = status_class_name(outcome->status);
    completed.evaluation.median_seconds = outcome->median_seconds;
    completed.evaluation.speedup = outcome->speedup;
    completed.evaluation.roofline_fraction = outcome->roofline_fraction;
    completed.evaluation.reward = evaluated.reward;
    completed.evaluation.outcome_json = dump_json(outcome_to_json(*outcome));
    for (const auto& [kind, data] : outcome->profiles.items())
        completed.profiles.push_back({run_id_, id, kind, dump_json(data)});
    for (const auto& finding : outcome->findings)
        completed.findings.push_back({run_id_, id, finding.tool, finding.estimated_gain, finding.summary + " " + finding.guidance,
                                      dump_json(analysis::to_json(finding))});
    if (evaluated.parent) completed.lesson = SearchMemory::lesson_from(tree_, id, task_, run_id_);
    completed.run_elapsed_seconds = current_spend().elapsed_seconds;
    if (auto status = store_.record_evaluation(completed); !status)
        return StepFailure{{StopKind::store_error}, status.error().message};
    persist_closures();
    if (progress_) progress_(progress_for(id));
    return std::nullopt;
}

void SearchDriver::absorb_evaluation(std::int64_t id, const EvaluationOutcome& outcome) {
    if (id == 0 && outcome.correct()) baseline_median_seconds_ = outcome.median_seconds;
    const double speedup = speedup_over_baseline(outcome, baseline_median_seconds_);
    const EvaluationOutcome* baseline = tree_.node(0).outcome ? &*tree_.node(0).outcome : nullptr;
    const double gain = objective_gain(config_.objective, outcome, id == 0 ? &outcome : baseline, speedup);
    tree_.apply_evaluation(id, outcome, calibrated_reward(config_.reward, outcome.correct(), gain), speedup, gain);
    close_after_evaluation(tree_, id, config_);
}

SearchProgress SearchDriver::progress_for(std::int64_t id) const {
    SearchProgress progress;
    progress.run_id = run_id_;
    progress.iteration = tree_.size() - 1;
    progress.node_id = id;
    progress.parent_id = tree_.node(id).parent;
    progress.status = tree_.node(id).outcome->status;
    progress.node_speedup_over_baseline = tree_.node(id).speedup_over_baseline;
    if (auto best = tree_.best_node(config_.objective)) {
        progress.best_speedup_over_baseline = tree_.node(*best).speedup_over_baseline;
        progress.best_speedup = tree_.node(*best).outcome->speedup;
    }
    progress.best_roofline_fraction = tree_.best_roofline_fraction();
    progress.spend = current_spend();
    return progress;
}

}  // namespace kp::search
