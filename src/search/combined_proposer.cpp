#include "search/combined_proposer.h"

namespace kp::search {

Result<ProposalBatch> CombinedProposer::propose(const ProposalRequest& request) {
    ProposalBatch batch;
    for (const auto& part : parts_) {
        auto answer = part->propose(request);
        if (!answer.ok()) return answer.error();
        for (auto& proposal : answer->proposals) batch.proposals.push_back(std::move(proposal));
        for (auto& exchange : answer->exchanges) batch.exchanges.push_back(std::move(exchange));
    }
    return batch;
}

}  // namespace kp::search
