// SearchDriver::restore_from_store: rebuilds the tree of a stored run by replaying it. Nodes are
// re-added in creation order with their proposer bookkeeping, queued proposals go back into their
// queues, and evaluations are re-absorbed in node order, which is the order the live run absorbed
// them in; so visits, rewards and closed nodes come out exactly as they were.
#include <map>

#include "search/search_driver.h"

namespace kp::search {

Status SearchDriver::restore_from_store() {
    tree_ = SearchTree{};
    baseline_median_seconds_.reset();
    auto nodes = store_.load_nodes(run_id_);
    if (!nodes) return nodes.error();
    auto evaluations = store_.load_evaluations(run_id_);
    if (!evaluations) return evaluations.error();
    auto proposals = store_.load_proposals(run_id_);
    if (!proposals) return proposals.error();
    const std::string where = "run " + std::to_string(run_id_) + ": ";

    for (const auto& record : *nodes) {
        if (record.node_id != tree_.size())
            return make_error(where + "node ids are not dense (found " + std::to_string(record.node_id) + ")");
        auto params = params_from_json(record.params_json);
        if (!params) return make_error(where + params.error().message);
        Candidate candidate{record.source, *params};
        if (record.node_id == 0) {
            tree_.add_root(candidate, record.evaluation_key);
        } else {
            auto kind = parse_proposal_kind(record.proposal_kind);
            if (!kind || !record.parent_id || *record.parent_id >= record.node_id)
                return make_error(where + "node " + std::to_string(record.node_id) + " is malformed");
            tree_.add_child(*record.parent_id, *kind, candidate, record.rationale, record.evaluation_key);
        }
        auto& node = tree_.node(record.node_id);
        node.proposer_calls = static_cast<int>(record.proposer_calls);
        node.parameter_moves_exhausted = (record.proposer_exhausted & store::ExhaustedKinds::parameter_moves) != 0;
        node.rewrites_exhausted = (record.proposer_exhausted & store::ExhaustedKinds::rewrites) != 0;
    }
    if (tree_.empty()) return make_error(where + "has no baseline node");

    for (const auto& record : *proposals) {
        if (record.state != store::ProposalState::queued) continue;
        if (record.parent_node_id < 0 || record.parent_node_id >= tree_.size())
            return make_error(where + "proposal " + std::to_string(record.id) + " has an unknown parent");
        auto kind = parse_proposal_kind(record.kind);
        auto params = params_from_json(record.params_json);
        if (!kind || !params) return make_error(where + "proposal " + std::to_string(record.id) + " is malformed");
        Proposal proposal{*kind, Candidate{record.source, *params}, record.rationale};
        tree_.node(record.parent_node_id).queue.push_back({record.id, proposal, record.evaluation_key});
        tree_.remember_key(record.evaluation_key);
    }

    std::map<std::int64_t, const store::EvaluationRecord*> by_node;
    for (const auto& evaluation : *evaluations) by_node[evaluation.node_id] = &evaluation;
    for (std::int64_t id = 0; id < tree_.size(); ++id) {
        auto found = by_node.find(id);
        if (found == by_node.end()) continue;  // pending: run_loop evaluates it again
        auto outcome = outcome_from_json(found->second->outcome_json);
        if (!outcome) return make_error(where + "evaluation of node " + std::to_string(id) + ": " + outcome.error().message);
        absorb_evaluation(id, *outcome);
    }
    (void)tree_.take_newly_closed();  // already recorded by the session that closed them
    return {};
}

}  // namespace kp::search
