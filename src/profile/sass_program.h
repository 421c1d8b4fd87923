// Structured SASS, as nvdisasm prints it: functions with their instructions. Offsets are
// section-relative bytes (start + 16 * index on sm_90), the key that joins nvdisasm with ncu's
// source page and CUPTI per-PC data.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kp::profile {

struct SourceLocation {
    std::string file;
    int line = 0;
};

struct SassInstruction {
    std::uint64_t offset = 0;
    std::string predicate;              // "@P0", "@!P1" or ""
    std::string opcode;                 // with modifiers: "LDG.E.128.CONSTANT"
    std::vector<std::string> operands;  // "R4", "desc[UR6][R4.64]"
    bool control_flow = false;
    std::optional<SourceLocation> location;  // from `nvdisasm -g` line info, when attached

    std::string_view base_opcode() const;    // "LDG"
    bool has_modifier(std::string_view modifier) const;  // has_modifier("128")
    std::string text() const;                // "@P0 LDG.E R8, desc[UR4][R8.64]"
};

struct SassFunction {
    std::string name;  // mangled
    std::uint64_t start = 0;
    std::uint64_t length = 0;
    std::vector<SassInstruction> instructions;
};

struct SassProgram {
    int sm_major = 0;
    int sm_minor = 0;
    std::string producer;      // "nvdisasm V13.0.85 ..."
    std::string tool_options;  // ptxas options from .note.nv.tkinfo, e.g. "-lineinfo -arch sm_90a"
    std::vector<SassFunction> functions;

    const SassFunction* find(std::string_view mangled_name) const;
};

// Splits "R1,c[0x0][0x28]" at commas outside brackets, trimming spaces.
std::vector<std::string> split_sass_operands(std::string_view operands);

}  // namespace kp::profile
