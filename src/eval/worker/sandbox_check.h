// sandbox_check mode: the sandbox goes on exactly as before an evaluation, but without a GPU; then
// the candidate library, if one is named, is loaded and its kp_forward called once with no tensors.
// `kernelpro doctor` uses it without a library (which layers this machine gives candidate code);
// the escape suite uses it with host code that tries to get out.
#pragma once

#include <nlohmann/json.hpp>

#include "eval/protocol.h"
#include "eval/worker/candidate_gate.h"
#include "eval/worker/channel.h"

namespace kp::worker {

nlohmann::json run_sandbox_check(const WorkerRequest& request, CandidateGate& gate, const Channel& channel);

}  // namespace kp::worker
