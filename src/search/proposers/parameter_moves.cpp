#include "search/proposers/parameter_moves.h"

#include <functional>

namespace kp::search {

std::optional<TunableSpace> space_to_search(const ProposalRequest& request) {
    if (!request.parameter_moves_wanted) return std::nullopt;
    auto space = parse_tunables(request.node.candidate.source);
    if (!space.ok() || space->parameters.empty()) return std::nullopt;
    return std::move(*space);
}

std::string proposal_scope(const ProposalRequest& request) {
    return request.task.name + "|" + std::to_string(std::hash<std::string>{}(request.node.candidate.source)) + "|";
}

Proposal parameter_move(const std::string& source, const ParameterValues& point, std::string rationale) {
    Proposal p;
    p.kind = ProposalKind::parameter_move;
    p.candidate.source = source;
    p.candidate.params = point;
    p.rationale = std::move(rationale);
    return p;
}

}  // namespace kp::search
