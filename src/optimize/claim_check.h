// Hardware a candidate says it uses, checked against the machine code it built to (issue 14 item 4).
// An LLM writer's rationale ("WGMMA mainloop fed by TMA") and the candidate's own text are plans;
// its SASS is what runs. Every built candidate whose source or rationale claims WGMMA, TMA or
// tensor cores is disassembled (only then: the text scan costs nothing) and each claim the SASS
// does not show is kept with the evaluation and told to the writer, whether or not it is profiled.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/finding.h"
#include "analysis/hardware_claims.h"

namespace kp::optimize {

struct ClaimCheck {
    std::vector<analysis::HardwareClaim> claims;    // what the source and the rationale claim
    std::vector<analysis::HardwareClaim> unbacked;  // of those, what no kernel's SASS shows
    std::string error;                              // the SASS could not be read (then nothing is judged)

    bool checked() const { return !claims.empty() && error.empty(); }
    nlohmann::json to_json() const;
    // The unbacked_hardware_claim finding the tuner and the writer read; only when a claim is unbacked.
    std::optional<analysis::Finding> finding() const;
};

// `library`: the candidate's built .so; `build_key`: its cache key (the disassembly is cached
// under it, shared with the profiler's); `source_name`: how a claim's place names the source
// ("candidate.cu:12"). No GPU.
ClaimCheck check_hardware_claims(const std::string& source, const std::string& rationale, const std::filesystem::path& library,
                                 const std::string& build_key, const std::string& source_name = "candidate.cu");

}  // namespace kp::optimize
