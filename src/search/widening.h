// Progressive widening with asymmetric branching: how many children of each proposal kind a node
// may have, given how often it has been visited.
#pragma once

#include <cstdint>

#include "search/proposal.h"
#include "search/search_config.h"

namespace kp::search {

// ceil(k * N^alpha); at least 1 for a visited node, so every evaluated node can be refined once.
int allowed_children(const WideningRule& rule, std::int64_t visits);

const WideningRule& widening_rule_for(const SearchConfig& config, ProposalKind kind);

}  // namespace kp::search
