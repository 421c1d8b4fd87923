// The finding for claims of hardware that the SASS does not show: the unbacked_hardware_claim
// tool's (one kernel, during a profile) and the evaluator's claim check's (every kernel of a
// candidate, with its writer's rationale; optimize/claim_check.h) are the same finding.
#pragma once

#include <string>
#include <vector>

#include "analysis/finding.h"
#include "analysis/hardware_claims.h"

namespace kp::analysis {

// `what_the_sass_shows` ends the summary: "this kernel's SASS shows none of it (137 instructions)".
Finding unbacked_claims_finding(const std::vector<HardwareClaim>& unbacked, const std::string& what_the_sass_shows);

}  // namespace kp::analysis
