// The profilers' name for the one NVIDIA tool locator (common/tool_locator.h), which `doctor`
// uses too.
#pragma once

#include "common/tool_locator.h"

namespace kp::profile {

using kp::locate_nvidia_tool;
using kp::require_nvidia_tool;

}  // namespace kp::profile
