// Both proposers at once: the tuner's cheap parameter moves and the LLM's rewrites, for one node
// (asymmetric branching decides how many of each the node may still take).
#pragma once

#include "search/proposer.h"

namespace kp::agents {

class CombinedProposer : public search::Proposer {
public:
    CombinedProposer(search::Proposer& parameter_moves, search::Proposer& rewrites)
        : moves_(parameter_moves), rewrites_(rewrites) {}
    Result<search::ProposalBatch> propose(const search::ProposalRequest& request) override;

private:
    search::Proposer& moves_;
    search::Proposer& rewrites_;
};

}  // namespace kp::agents
