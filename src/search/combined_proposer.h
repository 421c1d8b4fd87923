// Several proposers at once, each asked in turn about the same node (e.g. the tuner's cheap
// parameter moves and the LLM's rewrites); asymmetric branching decides how many of each kind the
// node may still take. make_proposers builds one for `--proposer a,b`.
#pragma once

#include <memory>
#include <vector>

#include "search/proposer.h"

namespace kp::search {

class CombinedProposer : public Proposer {
public:
    explicit CombinedProposer(std::vector<std::unique_ptr<Proposer>> parts) : parts_(std::move(parts)) {}
    // Proposals and exchanges in the parts' order; the first broken part's error stops the call.
    Result<ProposalBatch> propose(const ProposalRequest& request) override;

private:
    std::vector<std::unique_ptr<Proposer>> parts_;
};

}  // namespace kp::search
