// Claims that a kernel uses Hopper's or Ampere's matrix hardware, checked against its SASS. A
// candidate (its source, comments included, or the rationale an LLM gave with it) that says it
// uses WGMMA, TMA or tensor cores must show them in the machine code: HGMMA (and its QGMMA, IGMMA,
// BGMMA siblings) for WGMMA; UTMALDG, UTMASTG, UTMAPF, UTMAREDG or UBLKCP for TMA; HMMA, IMMA,
// DMMA, BMMA or a GMMA for tensor cores. A kernel that compiled to FFMA, or whose TMA copy fell
// back to LDG because the descriptor was never used, is what this catches: the claim is a plan,
// the SASS is what runs. Pure functions, tested on recorded SASS.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "profile/sass_program.h"

namespace kp::analysis {

struct HardwareClaim {
    std::string feature;  // "WGMMA", "TMA", "tensor cores"
    std::string where;    // "candidate.cu:12" or "rationale"
    std::string words;    // the text that claims it, as written ("wgmma", "cp.async.bulk")
};

// Every feature claimed in `text`, once per feature (its first mention); `where` names the text
// ("candidate.cu" gets :LINE appended, "rationale" stays as it is). A mention with a negation just
// before it ("no tensor cores", "without TMA") is not a claim.
std::vector<HardwareClaim> find_hardware_claims(std::string_view text, const std::string& where, bool number_lines);

// The SASS opcodes (base opcodes, "HGMMA") that show a feature.
const std::vector<std::string>& opcodes_showing(const std::string& feature);

// How many instructions of each base opcode a kernel (or a whole candidate) has.
using OpcodeCounts = std::map<std::string, int>;

// Counts of one function's instructions; of several, summed (a candidate's every kernel).
OpcodeCounts count_opcodes(const profile::SassFunction& function);
OpcodeCounts count_opcodes(const std::vector<const profile::SassFunction*>& functions);

// The claims that `counts` do not show, in the order given.
std::vector<HardwareClaim> unbacked_claims(const std::vector<HardwareClaim>& claims, const OpcodeCounts& counts);

// "claims WGMMA (candidate.cu:12: \"wgmma\") but the SASS has no HGMMA/QGMMA/IGMMA/BGMMA".
std::string describe_unbacked(const HardwareClaim& claim);

}  // namespace kp::analysis
