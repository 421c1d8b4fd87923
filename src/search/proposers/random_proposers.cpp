#include "search/proposers/random_proposers.h"

#include <functional>
#include <random>

namespace kp::search {

namespace {
Proposal make(const std::string& source, const ParameterValues& point, std::string rationale) {
    Proposal p;
    p.kind = ProposalKind::parameter_move;
    p.candidate.source = source;
    p.candidate.params = point;
    p.rationale = std::move(rationale);
    return p;
}
}  // namespace

Result<ProposalBatch> RandomSearchProposer::propose(const ProposalRequest& request) {
    ProposalBatch batch;
    if (!request.parameter_moves_wanted) return batch;
    const auto& source = request.node.candidate.source;
    auto space = parse_tunables(source);
    if (!space.ok() || space->parameters.empty()) return batch;
    std::string prefix = request.task.name + "|" + std::to_string(std::hash<std::string>{}(source)) + "|";
    std::lock_guard<std::mutex> lock(mutex_);
    proposed_.insert(prefix + point_text(resolve_point(source, *space, request.node.candidate.params)));
    std::mt19937_64 rng(request.seed + 0x51ed270b27a5ULL);
    for (int attempt = 0; attempt < 256 && static_cast<int>(batch.proposals.size()) < per_call_; ++attempt) {
        auto p = random_point(*space, rng);
        if (!p) break;
        if (!proposed_.insert(prefix + point_text(*p)).second) continue;
        batch.proposals.push_back(make(source, *p, "random point " + point_text(*p)));
    }
    return batch;
}

Result<ProposalBatch> ExhaustiveProposer::propose(const ProposalRequest& request) {
    ProposalBatch batch;
    if (!request.parameter_moves_wanted) return batch;
    const auto& source = request.node.candidate.source;
    auto space = parse_tunables(source);
    if (!space.ok() || space->parameters.empty()) return batch;
    std::string prefix = request.task.name + "|" + std::to_string(std::hash<std::string>{}(source)) + "|";
    std::lock_guard<std::mutex> lock(mutex_);
    proposed_.insert(prefix + point_text(resolve_point(source, *space, request.node.candidate.params)));
    for (const auto& p : enumerate_points(*space)) {
        if (static_cast<int>(batch.proposals.size()) >= per_call_) break;
        if (!proposed_.insert(prefix + point_text(p)).second) continue;
        batch.proposals.push_back(make(source, p, "exhaustive: " + point_text(p)));
    }
    return batch;
}

}  // namespace kp::search
