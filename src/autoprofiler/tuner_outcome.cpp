#include "autoprofiler/tuner_outcome.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "autoprofiler/tuning_record.h"
#include "search/proposers/parameter_space.h"
#include "search/proposers/tuner_proposer.h"

namespace kp::autoprofiler {

namespace {

struct SimulatedNode {
    search::NodeView view;
    std::vector<int> lineage;  // indices of its ancestors, the start first
    int calls = 0;
    bool exhausted = false;
};

}  // namespace

TunerRun simulate_tuner(const KernelRecord& kernel, const std::vector<analysis::Finding>& shown, int evaluations) {
    TunerRun run;
    if (!kernel.tuning) return run;
    const TuningTable& table = *kernel.tuning;
    const std::string start_text = search::point_text(table.start);
    const auto recorded = table.by_point.find(start_text);
    if (recorded == table.by_point.end() || !recorded->second.correct() || !recorded->second.median_seconds) return run;  // nothing to start from
    search::EvaluationOutcome start = recorded->second;
    start.findings = shown;  // what a profiled evaluation of the start would have carried
    run.start_seconds = run.best_seconds = start.median_seconds.value_or(0);
    run.best_point = start_text;

    std::vector<SimulatedNode> nodes(1);
    nodes[0].view.node_id = 0;
    nodes[0].view.origin = "baseline";
    nodes[0].view.candidate = {table.source, table.start};
    nodes[0].view.evaluation = std::move(start);
    nodes[0].view.speedup_over_baseline = 1.0;

    search::TunerProposer tuner;  // fresh: its "already proposed" set is this simulation's
    const std::uint64_t seed = std::hash<std::string>{}(kernel.name);
    while (run.evaluations < evaluations) {
        // The fastest node that may still propose (a failed node is never improved).
        int pick = -1;
        for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
            const auto& n = nodes[i];
            if (n.exhausted || !n.view.evaluation->correct()) continue;
            if (pick < 0 || n.view.speedup_over_baseline > nodes[pick].view.speedup_over_baseline) pick = i;
        }
        if (pick < 0) break;
        search::ProposalRequest request;
        request.task.name = table.task;
        request.node = nodes[pick].view;
        for (int a : nodes[pick].lineage) request.lineage.push_back(nodes[a].view);
        request.call_index = nodes[pick].calls++;
        request.seed = seed ^ (static_cast<std::uint64_t>(pick) << 20) ^ static_cast<std::uint64_t>(request.call_index);
        auto batch = tuner.propose(request);
        if (!batch || batch->proposals.empty()) {
            nodes[pick].exhausted = true;
            continue;
        }
        for (const auto& proposal : batch->proposals) {
            if (run.evaluations >= evaluations) break;
            ++run.evaluations;
            const std::string text = search::point_text(proposal.candidate.params);
            run.tried.push_back(text);
            SimulatedNode child;
            child.view.node_id = static_cast<std::int64_t>(nodes.size());
            child.view.parent_id = nodes[pick].view.node_id;
            child.view.origin = "parameter_move";
            child.view.candidate = proposal.candidate;
            child.view.rationale = proposal.rationale;
            child.view.depth = nodes[pick].view.depth + 1;
            auto found = table.by_point.find(text);
            if (found != table.by_point.end()) child.view.evaluation = found->second;
            else {
                search::EvaluationOutcome missing;  // not in the table: a failed evaluation
                missing.status = search::StatusClass::invalid_timing;
                missing.message = "not in the recorded table";
                child.view.evaluation = std::move(missing);
            }
            const auto& e = *child.view.evaluation;
            if (e.correct() && e.median_seconds && *e.median_seconds > 0) {
                child.view.speedup_over_baseline = run.start_seconds / *e.median_seconds;
                if (*e.median_seconds < run.best_seconds) {
                    run.best_seconds = *e.median_seconds;
                    run.best_point = text;
                }
            }
            child.lineage = nodes[pick].lineage;
            child.lineage.push_back(pick);
            nodes.push_back(std::move(child));
        }
    }
    return run;
}

namespace {

class TunerOutcome : public Objective {
public:
    TunerOutcome(int evaluations, double cost_weight) : evaluations_(evaluations), cost_weight_(cost_weight) {}
    std::string name() const override { return "tuner_outcome"; }
    Score score(const std::vector<KernelRecord>& kernels, const std::vector<TreeOutcome>& outcomes, const Budget& budget) const override {
        Score s;
        const double share = add_costs(s, outcomes, budget);
        double log_sum = 0;
        for (size_t i = 0; i < kernels.size(); ++i) {
            if (!kernels[i].tuning) continue;
            log_sum += std::log2(simulate_tuner(kernels[i], outcomes[i].findings, evaluations_).speedup());
            ++s.tuned;
        }
        if (s.tuned == 0) return s;
        s.tuner_speedup = std::exp2(log_sum / s.tuned);
        s.value = log_sum / s.tuned - cost_weight_ * share;
        return s;
    }

private:
    int evaluations_;
    double cost_weight_;
};

}  // namespace

std::unique_ptr<Objective> tuner_outcome(int evaluations, double cost_weight) {
    return std::make_unique<TunerOutcome>(evaluations, cost_weight);
}

}  // namespace kp::autoprofiler
