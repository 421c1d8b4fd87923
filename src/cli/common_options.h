// Option parsing shared by several subcommands.
#pragma once

#include <string>
#include <vector>

#include "build/tunables.h"
#include "common/result.h"

namespace kp::cli {

// ["BLOCK=256", "VEC=4"] -> {BLOCK: 256, VEC: 4}
Result<ParameterValues> parse_parameter_values(const std::vector<std::string>& assignments);

// "20261201-193000": the UTC time, for default output folder names.
std::string utc_stamp();

}  // namespace kp::cli
