// The search's only view of where new kernel versions come from: the profile-guided tuner
// (parameter moves), LLM agents (rewrites), or a mix. Implementations live in search/proposers/.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "search/candidate.h"
#include "search/evaluation_outcome.h"
#include "search/lesson.h"
#include "search/objective.h"
#include "search/proposal.h"

namespace kp::search {

// Which kind of profile feedback proposers should show the LLM (an ablation switch the search
// only passes through): none, raw counters, or the micro-profiling tools' findings.
enum class FeedbackKind { none, raw_metrics, tool_findings };
const char* feedback_kind_name(FeedbackKind kind);
std::optional<FeedbackKind> parse_feedback_kind(const std::string& text);

// A node as proposers see it.
struct NodeView {
    std::int64_t node_id = 0;
    std::optional<std::int64_t> parent_id;
    std::string origin;  // baseline | parameter_move | rewrite
    Candidate candidate;
    std::string rationale;
    std::optional<EvaluationOutcome> evaluation;
    double speedup_over_baseline = 0.0;  // 0 when not correct
    int depth = 0;
};

struct ProposalRequest {
    TaskIdentity task;
    std::int64_t run_id = 0;
    NodeView node;                   // the node to improve (always evaluated)
    std::vector<NodeView> lineage;   // its ancestors, baseline first
    std::vector<Lesson> lessons;     // search memory; empty when memory is off
    bool parameter_moves_wanted = true;  // what widening currently admits at this node
    bool rewrites_wanted = true;
    int call_index = 0;              // how many times this node was asked before
    std::uint64_t seed = 0;          // derived from the run seed, node and call: for reproducible proposers
    FeedbackKind feedback = FeedbackKind::tool_findings;
    // Does the run already have this candidate (a node, or a proposal waiting in a queue)? A
    // proposer that must not repeat itself asks this rather than remembering what it proposed,
    // so a resumed run proposes what an uninterrupted one would. Empty: nothing is known.
    std::function<bool(const Candidate&)> is_known;
    // What the run optimizes, and the node's time and energy evidence in one line (objective.h).
    ObjectiveRule objective;
    std::string objective_note;
};

class Proposer {
public:
    virtual ~Proposer() = default;
    // Zero proposals means "nothing more for this node". Return an error only when the proposer
    // itself is broken (no API key, endpoint down): the run stops and can be resumed.
    virtual Result<ProposalBatch> propose(const ProposalRequest& request) = 0;
};

}  // namespace kp::search
