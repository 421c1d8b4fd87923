// `nvdisasm -json` output (schema 12.8 / 13.2): [metadata, [functions]]. Each function has
// "function-name", "start", "length", "sass-instructions"; an instruction has an optional
// "predicate", an "opcode" with modifiers, "operands" as one comma-separated string, and
// "other-attributes" (control flow). There are no per-instruction offsets: offset = start + 16*i.
#pragma once

#include <string_view>

#include "common/result.h"
#include "profile/sass_program.h"

namespace kp::profile {

Result<SassProgram> parse_nvdisasm_json(std::string_view text);

}  // namespace kp::profile
