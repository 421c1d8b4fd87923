// The built-in profile-guided tuner: parameter moves (a step to the neighbouring value of one
// kp:tune parameter) ranked by what the node's diagnosis points to. The diagnosis is the typed
// remedies of the evaluation's findings (analysis/remedy.h: which parameter role to move, which
// way, how strongly), weighted by each finding's gain, when a profiler produced them, e.g.
//   narrow / uncoalesced accesses         -> VEC up
//   register spills                       -> UNROLL, BLOCK, MINB, STAGES down
//   register-limited occupancy            -> MINB up, BLOCK / UNROLL down
//   small grid / tail effect              -> less work per block, GRID up
//   long-scoreboard latency               -> more bytes in flight (UNROLL, VEC up)
// else cheap compiler facts (outcome.details["compiler"]: registers, spill bytes from ptxas -v,
// with the same remedy sets), else the roofline class; with nothing at all it explores with a
// seeded RNG. A finding's prose is never read. Lessons of the run
// (search memory) push the ranking towards moves that paid off. Deterministic for a seed.
#pragma once

#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "search/proposer.h"
#include "search/proposers/parameter_space.h"

namespace kp::search {

// One direction the diagnosis points to, in terms of parameter roles.
struct MoveHint {
    ParameterRole role = ParameterRole::other;
    int direction = 0;  // +1 up the value list, -1 down
    double weight = 0.0;
    std::string reason;
};

// Reads the hints out of an evaluation (findings first, then compiler facts, then roofline class).
std::vector<MoveHint> diagnose(const EvaluationOutcome& outcome);

// Compiler facts the tuner understands, as the evaluator stores them in outcome.details["compiler"].
struct CompilerFacts {
    int registers = 0;
    long spill_bytes = 0;  // stores + loads
    long shared_bytes = 0;
};
nlohmann::json compiler_facts_to_json(const CompilerFacts& facts);

struct RankedMove {
    ParameterMove move;
    double score = 0.0;
    std::string rationale;
};

struct TunerOptions {
    int proposals_per_call = 3;
    int exploration_per_call = 2;  // random points once the neighbourhood is used up
    double jitter = 0.05;          // tie-break noise when the diagnosis says something
};

class TunerProposer : public Proposer {
public:
    explicit TunerProposer(TunerOptions options = {}) : options_(options) {}
    Result<ProposalBatch> propose(const ProposalRequest& request) override;

    // The node's neighbour moves, best first (exposed for tests and the benchmark).
    std::vector<RankedMove> rank_moves(const ProposalRequest& request, const TunableSpace& space,
                                       const ParameterValues& point) const;

private:
    TunerOptions options_;
    std::mutex mutex_;
    std::set<std::string> proposed_;  // task + point: never propose a point twice in one process
};

}  // namespace kp::search
