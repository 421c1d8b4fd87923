#include "agents/combined_proposer.h"

namespace kp::agents {

Result<search::ProposalBatch> CombinedProposer::propose(const search::ProposalRequest& request) {
    search::ProposalBatch batch;
    for (search::Proposer* p : {&moves_, &rewrites_}) {
        auto part = p->propose(request);
        if (!part.ok()) return part.error();
        for (auto& proposal : part->proposals) batch.proposals.push_back(std::move(proposal));
        for (auto& exchange : part->exchanges) batch.exchanges.push_back(std::move(exchange));
    }
    return batch;
}

}  // namespace kp::agents
