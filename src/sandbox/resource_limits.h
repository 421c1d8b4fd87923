// Resource limits of sandboxed code: no core files, a cap on the size of any file it writes (a
// write past it fails with EFBIG instead of raising SIGXFSZ), and a cap on open descriptors. Both
// soft and hard limits are set; the filter then denies raising them.
#pragma once

#include <cstdint>
#include <string>

#include "common/result.h"

namespace kp::sandbox {

// Returns one line saying what was set.
Result<std::string> apply_resource_limits(std::int64_t max_file_bytes);

}  // namespace kp::sandbox
