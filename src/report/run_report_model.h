// Everything `kernelpro report` shows about one optimization run, read from the run store alone
// and turned into one JSON model that the page's script draws: the tree of nodes (status,
// speedup over the run's baseline, reward, findings with their evidence, roofline placement,
// energy when measured), the evaluations in commit order, the task's roofline, the best kernel's
// diff against its start, the LLM exchanges and the run's totals (tokens, dollars, GPU time).
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "store/run_store.h"

namespace kp::report {

Result<nlohmann::json> run_report_model(store::RunStore& store, std::int64_t run_id);

// The source as best.cu writes it: the parameters baked in as #defines ahead of the code, so a
// parameter move shows up in the diff as the lines it changes.
std::string source_with_parameters(const std::string& source, const std::map<std::string, std::string>& params);

}  // namespace kp::report
