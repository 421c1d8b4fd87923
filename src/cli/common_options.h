// Option parsing shared by several subcommands.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "build/tunables.h"
#include "common/result.h"

namespace kp::cli {

// ["BLOCK=256", "VEC=4"] -> {BLOCK: 256, VEC: 4}
Result<ParameterValues> parse_parameter_values(const std::vector<std::string>& assignments);

// "20261201-193000": the UTC time, for default output folder names.
std::string utc_stamp();

// The -D values for a candidate, checked against what it declares: its `// kp:tune` lines must
// parse, every NAME must be declared there, every VALUE must be one of the declared values, and
// the `// kp:constraint` lines must hold. Errors name the candidate file and the line.
Result<ParameterValues> candidate_parameter_values(const std::filesystem::path& candidate,
                                                   const std::vector<std::string>& assignments);

// The check `eval`, `optimize` and `runs resume` make before they build or record anything: a GPU
// the driver can use. The error is doctor's line ("no GPU: ..."), an environment error (exit 3).
// With KERNELPRO_WORKER set, the replacement worker answers for its device instead.
Status require_usable_gpu();

// For ->check(): a number that must be finite and at least `minimum` (CLI11's own ranges let NaN
// through), so NaN, inf and negative budgets and times are usage errors.
CLI::Validator finite_at_least(double minimum);

}  // namespace kp::cli
