#include "search/proposers/random_proposers.h"

#include "search/proposers/parameter_moves.h"

namespace kp::search {

Result<ProposalBatch> UnproposedPointProposer::propose(const ProposalRequest& request) {
    ProposalBatch batch;
    auto space = space_to_search(request);
    if (!space) return batch;
    const auto& source = request.node.candidate.source;
    const std::string scope = proposal_scope(request);
    std::lock_guard<std::mutex> lock(mutex_);
    proposed_.insert(scope + point_text(resolve_point(source, *space, request.node.candidate.params)));
    offer_points(*space, request, [&](const ParameterValues& point) {
        if (static_cast<int>(batch.proposals.size()) >= per_call_) return false;
        if (proposed_.insert(scope + point_text(point)).second) batch.proposals.push_back(parameter_move(source, point, rationale(point)));
        return true;
    });
    return batch;
}

void RandomSearchProposer::offer_points(const TunableSpace& space, const ProposalRequest& request,
                                        const std::function<bool(const ParameterValues&)>& offer) const {
    std::mt19937_64 rng(request.seed + 0x51ed270b27a5ULL);
    for (int attempt = 0; attempt < 256; ++attempt) {
        auto p = random_point(space, rng);
        if (!p || !offer(*p)) break;
    }
}

void ExhaustiveProposer::offer_points(const TunableSpace& space, const ProposalRequest&,
                                      const std::function<bool(const ParameterValues&)>& offer) const {
    for (const auto& p : enumerate_points(space))
        if (!offer(p)) break;
}

}  // namespace kp::search
