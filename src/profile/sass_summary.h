// Per-function static counts over SASS: the instruction mix by class and the patterns the
// micro-profiling tools look for (vector widths, spills, tensor use, FP64, fused math, barriers,
// atomics). Static counts say what the compiler emitted, not how often it ran.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "profile/sass_program.h"

namespace kp::profile {

// Instruction classes used for the mix.
enum class SassClass {
    fp32, fp64, fp16, tensor, integer, conversion, special_function,
    global_memory, shared_memory, local_memory, generic_memory, constant_memory,
    atomic, barrier, control, move, other, nop,
};
std::string_view to_string(SassClass value);

SassClass classify_sass_instruction(const SassInstruction& instruction);

// Access width in bits of a memory instruction: LDG.E -> 32, .64, .128, .U8 -> 8, .U16 -> 16.
int memory_access_bits(const SassInstruction& instruction);

// True for HFMA2.MMA/HFMA2 with RZ sources: the compiler's way to load a constant, not FP16 math.
bool is_constant_materialization(const SassInstruction& instruction);

struct AccessWidthMix {
    int narrow = 0;  // 8 or 16 bit
    int bits32 = 0;
    int bits64 = 0;
    int bits128 = 0;
    int total() const { return narrow + bits32 + bits64 + bits128; }
    // Share of instructions that move 32 bits or less per thread.
    double share_at_most_32_bits() const { return total() ? double(narrow + bits32) / total() : 0.0; }
};

struct SassSummary {
    std::string function;
    int instructions = 0;  // without NOPs
    std::map<SassClass, int> class_counts;

    AccessWidthMix global_loads, global_stores, shared_loads, shared_stores, generic_loads, generic_stores;
    int read_only_global_loads = 0;  // LDG .CONSTANT
    int local_loads = 0, local_stores = 0;

    int tensor_instructions = 0;
    std::map<std::string, int> tensor_opcodes;  // "HMMA.16816.F32.BF16" -> 10
    int ffma = 0, fadd = 0, fmul = 0;
    int dfma = 0, dadd = 0, dmul = 0;
    int half_math = 0;             // HFMA2/HADD2/HMUL2 without constant materializations
    int constant_materializations = 0;
    int mufu = 0;
    int barriers = 0;              // BAR.*
    int atomics = 0;               // ATOM, ATOMG, ATOMS, RED, REDG
    int branches = 0;              // BRA, BRX, JMP, JMX
    int reconvergence = 0;         // BSSY / BSYNC / WARPSYNC
    int predicated = 0;
    int calls = 0;                 // CALL (e.g. emulated 64-bit division)

    int count(SassClass c) const;
    int fp64_instructions() const { return dfma + dadd + dmul; }
    // FFMA / (FFMA + FADD + FMUL); 1 when there is no FP32 math.
    double fp32_fused_share() const;
};

SassSummary summarize_sass(const SassFunction& function);

}  // namespace kp::profile
