// Baselines for the tuner: random search (uniform points of the space, seeded) and the exhaustive
// enumerator (every point that satisfies the constraints, in declared order). Both ignore the
// diagnosis; the benchmark compares the tuner against them.
#pragma once

#include <mutex>
#include <set>
#include <string>

#include "search/proposer.h"
#include "search/proposers/parameter_space.h"

namespace kp::search {

class RandomSearchProposer : public Proposer {
public:
    explicit RandomSearchProposer(int proposals_per_call = 3) : per_call_(proposals_per_call) {}
    Result<ProposalBatch> propose(const ProposalRequest& request) override;

private:
    int per_call_;
    std::mutex mutex_;
    std::set<std::string> proposed_;
};

// Hands out the whole space once (per task and source), `proposals_per_call` at a time.
class ExhaustiveProposer : public Proposer {
public:
    explicit ExhaustiveProposer(int proposals_per_call = 8) : per_call_(proposals_per_call) {}
    Result<ProposalBatch> propose(const ProposalRequest& request) override;

private:
    int per_call_;
    std::mutex mutex_;
    std::set<std::string> proposed_;
};

}  // namespace kp::search
