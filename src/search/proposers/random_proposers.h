// Baselines for the tuner: random search (uniform points of the space, seeded) and the exhaustive
// enumerator (every point that satisfies the constraints, in declared order). Both ignore the
// diagnosis; the benchmark compares the tuner against them.
#pragma once

#include <functional>
#include <random>
#include <string>

#include "search/proposer.h"
#include "search/proposers/parameter_space.h"

namespace kp::search {

// Proposes points of the node's space that the run does not have yet (ProposalRequest::is_known),
// at most `proposals_per_call` at a time; subclasses say which points to try, in which order.
// Stateless, so a resumed run proposes what an uninterrupted one would.
class UnproposedPointProposer : public Proposer {
public:
    Result<ProposalBatch> propose(const ProposalRequest& request) final;

protected:
    explicit UnproposedPointProposer(int proposals_per_call) : per_call_(proposals_per_call) {}
    // Calls `offer` with candidate points in order until it returns false (the batch is full).
    virtual void offer_points(const TunableSpace& space, const ProposalRequest& request,
                              const std::function<bool(const ParameterValues&)>& offer) const = 0;
    virtual std::string rationale(const ParameterValues& point) const = 0;

private:
    int per_call_;
};

class RandomSearchProposer : public UnproposedPointProposer {
public:
    explicit RandomSearchProposer(int proposals_per_call = 3) : UnproposedPointProposer(proposals_per_call) {}

private:
    void offer_points(const TunableSpace& space, const ProposalRequest& request,
                      const std::function<bool(const ParameterValues&)>& offer) const override;
    std::string rationale(const ParameterValues& point) const override { return "random point " + point_text(point); }
};

// Hands out the whole space once (per task and source), `proposals_per_call` at a time.
class ExhaustiveProposer : public UnproposedPointProposer {
public:
    explicit ExhaustiveProposer(int proposals_per_call = 8) : UnproposedPointProposer(proposals_per_call) {}

private:
    void offer_points(const TunableSpace& space, const ProposalRequest& request,
                      const std::function<bool(const ParameterValues&)>& offer) const override;
    std::string rationale(const ParameterValues& point) const override { return "exhaustive: " + point_text(point); }
};

}  // namespace kp::search
