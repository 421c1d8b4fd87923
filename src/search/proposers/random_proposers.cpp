#include "search/proposers/random_proposers.h"

#include <set>

#include "search/proposer_registry.h"
#include "search/proposers/parameter_moves.h"

namespace kp::search {

Result<ProposalBatch> UnproposedPointProposer::propose(const ProposalRequest& request) {
    ProposalBatch batch;
    auto space = space_to_search(request);
    if (!space) return batch;
    const auto& source = request.node.candidate.source;
    const ParameterValues here = resolve_point(source, *space, request.node.candidate.params);
    std::set<std::string> in_batch{point_text(here)};
    offer_points(*space, request, [&](const ParameterValues& point) {
        if (static_cast<int>(batch.proposals.size()) >= per_call_) return false;
        const bool known = request.is_known && request.is_known(Candidate{source, point});
        if (!known && in_batch.insert(point_text(point)).second)
            batch.proposals.push_back(parameter_move(source, point, rationale(point)));
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

KP_REGISTER_PROPOSER(
    ProposerPlugin{"random", "uniform random points of the kp:tune space, seeded (a baseline)",
                   [](ProposerContext&) -> Result<std::unique_ptr<Proposer>> {
                       return std::unique_ptr<Proposer>(std::make_unique<RandomSearchProposer>());
                   },
                   nullptr, nullptr},
    ProposerPlugin{"exhaustive", "every point of the kp:tune space, in declared order (a baseline)",
                   [](ProposerContext&) -> Result<std::unique_ptr<Proposer>> {
                       return std::unique_ptr<Proposer>(std::make_unique<ExhaustiveProposer>());
                   },
                   nullptr, nullptr})

}  // namespace kp::search
