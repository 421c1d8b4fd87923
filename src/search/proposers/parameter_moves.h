// What the built-in proposers of parameter moves share: the space they search (the node's kp:tune
// lines, when the driver wants parameter moves), the scope of their "already proposed" sets, and
// the proposal itself.
#pragma once

#include <optional>
#include <string>

#include "build/tunables.h"
#include "search/proposer.h"

namespace kp::search {

// The tunable space of the node's source; nullopt when the driver wants no parameter moves or the
// source declares no parameter (then there is nothing to propose).
std::optional<TunableSpace> space_to_search(const ProposalRequest& request);

// Prefix for keys of proposed points: a point is new per task and per source text.
std::string proposal_scope(const ProposalRequest& request);

// A parameter move: the node's source at `point`.
Proposal parameter_move(const std::string& source, const ParameterValues& point, std::string rationale);

}  // namespace kp::search
