#include "profile/sass_summary.h"

#include <array>

namespace kp::profile {
namespace {

bool is_one_of(std::string_view op, std::initializer_list<std::string_view> names) {
    for (std::string_view name : names)
        if (op == name) return true;
    return false;
}

}  // namespace

std::string_view to_string(SassClass value) {
    switch (value) {
        case SassClass::fp32: return "fp32";
        case SassClass::fp64: return "fp64";
        case SassClass::fp16: return "fp16";
        case SassClass::tensor: return "tensor";
        case SassClass::integer: return "integer";
        case SassClass::conversion: return "conversion";
        case SassClass::special_function: return "special_function";
        case SassClass::global_memory: return "global_memory";
        case SassClass::shared_memory: return "shared_memory";
        case SassClass::local_memory: return "local_memory";
        case SassClass::generic_memory: return "generic_memory";
        case SassClass::constant_memory: return "constant_memory";
        case SassClass::atomic: return "atomic";
        case SassClass::barrier: return "barrier";
        case SassClass::control: return "control";
        case SassClass::move: return "move";
        case SassClass::other: return "other";
        case SassClass::nop: return "nop";
    }
    return "other";
}

bool is_constant_materialization(const SassInstruction& instruction) {
    if (instruction.base_opcode() != "HFMA2") return false;
    // Destination, then sources; "-RZ, RZ" as the multiplicands means the result is the addend
    // immediate: a constant load (seen in FP32-only kernels on sm_90).
    if (instruction.operands.size() < 3) return false;
    auto zero = [](const std::string& op) { return op == "RZ" || op == "-RZ"; };
    return zero(instruction.operands[1]) || zero(instruction.operands[2]);
}

int memory_access_bits(const SassInstruction& instruction) {
    if (instruction.has_modifier("128")) return 128;
    if (instruction.has_modifier("64")) return 64;
    if (instruction.has_modifier("U8") || instruction.has_modifier("S8")) return 8;
    if (instruction.has_modifier("U16") || instruction.has_modifier("S16")) return 16;
    return 32;
}

SassClass classify_sass_instruction(const SassInstruction& instruction) {
    std::string_view op = instruction.base_opcode();
    if (op == "NOP") return SassClass::nop;
    if (is_one_of(op, {"HMMA", "HGMMA", "QGMMA", "IMMA", "IGMMA", "BMMA", "BGMMA", "DMMA", "WARPGROUP"}))
        return SassClass::tensor;
    if (is_one_of(op, {"FFMA", "FADD", "FMUL", "FFMA32I", "FADD32I", "FMUL32I", "FMNMX", "FSETP", "FSEL", "FSET", "FCHK", "FSWZADD"}))
        return SassClass::fp32;
    if (is_one_of(op, {"DFMA", "DADD", "DMUL", "DSETP", "DMNMX"})) return SassClass::fp64;
    if (is_one_of(op, {"HFMA2", "HADD2", "HMUL2", "HSETP2", "HMNMX2"}))
        return is_constant_materialization(instruction) ? SassClass::move : SassClass::fp16;
    if (op == "MUFU") return SassClass::special_function;
    if (is_one_of(op, {"F2F", "F2I", "I2F", "I2FP", "F2FP", "FRND", "I2I"})) return SassClass::conversion;
    if (is_one_of(op, {"LDG", "STG", "LDGSTS", "UTMALDG", "UTMASTG", "UBLKCP"})) return SassClass::global_memory;
    if (is_one_of(op, {"LDS", "STS", "LDSM", "STSM"})) return SassClass::shared_memory;
    if (is_one_of(op, {"LDL", "STL"})) return SassClass::local_memory;
    if (is_one_of(op, {"LD", "ST"})) return SassClass::generic_memory;
    if (is_one_of(op, {"LDC", "ULDC"})) return SassClass::constant_memory;
    if (is_one_of(op, {"ATOM", "ATOMG", "ATOMS", "RED", "REDG"})) return SassClass::atomic;
    if (is_one_of(op, {"BAR", "MEMBAR", "ERRBAR", "DEPBAR", "SYNCS", "ARRIVES"})) return SassClass::barrier;
    if (is_one_of(op, {"BRA", "BRX", "JMP", "JMX", "CALL", "RET", "EXIT", "BSSY", "BSYNC", "WARPSYNC", "BREAK", "BPT", "YIELD"}))
        return SassClass::control;
    if (is_one_of(op, {"MOV", "UMOV", "MOVM", "SEL", "USEL", "CS2R", "S2R", "S2UR", "SHFL", "PRMT", "R2UR", "P2R", "R2P"}))
        return SassClass::move;
    if (is_one_of(op, {"IMAD", "IADD3", "IADD", "LEA", "SHF", "LOP3", "ISETP", "IABS", "IMNMX", "VIADD", "VIMNMX",
                       "UIADD3", "UIMAD", "ULEA", "USHF", "ULOP3", "UISETP", "PLOP3", "POPC", "FLO", "BREV",
                       "IDP", "IMUL", "ISCADD", "BMSK", "SGXT", "UPLOP3", "ULOP", "USGXT", "UFLO", "UPOPC"}))
        return SassClass::integer;
    return SassClass::other;
}

int SassSummary::count(SassClass c) const {
    auto it = class_counts.find(c);
    return it == class_counts.end() ? 0 : it->second;
}

double SassSummary::fp32_fused_share() const {
    int all = ffma + fadd + fmul;
    return all == 0 ? 1.0 : double(ffma) / all;
}

namespace {

void add_width(AccessWidthMix& mix, int bits) {
    if (bits < 32) ++mix.narrow;
    else if (bits == 32) ++mix.bits32;
    else if (bits == 64) ++mix.bits64;
    else ++mix.bits128;
}

}  // namespace

SassSummary summarize_sass(const SassFunction& function) {
    SassSummary s;
    s.function = function.name;
    for (const SassInstruction& ins : function.instructions) {
        SassClass kind = classify_sass_instruction(ins);
        if (kind == SassClass::nop) continue;
        ++s.instructions;
        ++s.class_counts[kind];
        if (!ins.predicate.empty()) ++s.predicated;
        std::string_view op = ins.base_opcode();
        int bits = memory_access_bits(ins);

        if (op == "LDG") {
            add_width(s.global_loads, bits);
            if (ins.has_modifier("CONSTANT")) ++s.read_only_global_loads;
        } else if (op == "STG") add_width(s.global_stores, bits);
        else if (op == "LDS") add_width(s.shared_loads, bits);
        else if (op == "STS") add_width(s.shared_stores, bits);
        else if (op == "LD") add_width(s.generic_loads, bits);
        else if (op == "ST") add_width(s.generic_stores, bits);
        else if (op == "LDL") ++s.local_loads;
        else if (op == "STL") ++s.local_stores;
        else if (op == "FFMA" || op == "FFMA32I") ++s.ffma;
        else if (op == "FADD" || op == "FADD32I") ++s.fadd;
        else if (op == "FMUL" || op == "FMUL32I") ++s.fmul;
        else if (op == "DFMA") ++s.dfma;
        else if (op == "DADD") ++s.dadd;
        else if (op == "DMUL") ++s.dmul;
        else if (op == "MUFU") ++s.mufu;
        else if (op == "BAR") ++s.barriers;
        else if (op == "CALL") ++s.calls;
        else if (op == "BRA" || op == "BRX" || op == "JMP" || op == "JMX") ++s.branches;
        else if (op == "BSSY" || op == "BSYNC" || op == "WARPSYNC") ++s.reconvergence;

        if (kind == SassClass::fp16) ++s.half_math;
        if (kind == SassClass::move && op == "HFMA2") ++s.constant_materializations;
        if (kind == SassClass::atomic) ++s.atomics;
        if (kind == SassClass::tensor && op != "WARPGROUP") {
            ++s.tensor_instructions;
            ++s.tensor_opcodes[ins.opcode];
        }
    }
    return s;
}

}  // namespace kp::profile
