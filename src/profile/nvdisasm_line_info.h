// `nvdisasm -c -g` (or `-gi`) text: SASS with "//## File "<path>", line N" comments. Gives file:line
// per instruction so findings can cite source lines. With -gi, inlined code is preceded by its whole
// stack ("line 84 inlined at "k.cu", line 11", then "k.cu", line 11): the last line, the outermost
// caller, is the one kept. Offsets are section-relative, like the -json ones.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "profile/sass_program.h"

namespace kp::profile {

struct LineInfoEntry {
    std::uint64_t offset = 0;
    std::string sass;  // "LDG.E R8, desc[UR4][R8.64]" (predicate included when present)
    std::optional<SourceLocation> location;
};

// Function name (mangled) -> its instructions in order.
using LineInfoTable = std::map<std::string, std::vector<LineInfoEntry>>;

Result<LineInfoTable> parse_nvdisasm_line_info(std::string_view text);

// Copies locations onto the program's instructions, matched by function name and offset.
// Returns how many instructions received a location.
size_t attach_line_info(SassProgram& program, const LineInfoTable& table);

}  // namespace kp::profile
