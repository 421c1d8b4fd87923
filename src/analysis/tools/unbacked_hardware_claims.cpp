// A kernel whose source says WGMMA, TMA or tensor cores (in code or comments: the plan its writer
// had) while its SASS has no instruction that carries them (analysis/hardware_claims.h). The
// KernelPro paper's SASS tool caught kernels that had silently fallen back to scalar code; this is
// the same check for the claim itself: a CuTe kernel built without sm_90a, an MMA atom that is
// declared but not the one the mainloop uses, a TMA copy replaced by a fallback LDG path.
// Per kernel: in a candidate of several kernels, a helper kernel is named too when the claim sits
// in shared text (a file header), which its summary makes plain.
#include "analysis/tools/unbacked_hardware_claims.h"

#include "analysis/tools/builtin_tools.h"
#include "analysis/tools/tool_base.h"

namespace kp::analysis {
namespace {

// Not a measured loss: a claimed unit that is missing usually means the kernel runs on the slow
// path it meant to leave, so the finding ranks like a medium one (severity_for_gain).
constexpr double kGainWhenMatrixUnitsMissing = 0.25;
constexpr double kGainWhenTmaMissing = 0.10;

class UnbackedHardwareClaimsTool final : public DescribedTool {
public:
    UnbackedHardwareClaimsTool()
        : DescribedTool("unbacked_hardware_claim", every_class(), DataNeeds{{}, /*sass=*/true, false, false, false, false},
                        "the candidate's source names WGMMA (wgmma, GMMA, SM90_64xNxK atoms), TMA (tma, cp.async.bulk, "
                        "cuTensorMapEncode, SM90_TMA_*) or tensor cores (mma, wmma, tensor core, SM80_16x8xK atoms), without "
                        "a negation just before, and the kernel's SASS has none of HGMMA/QGMMA/IGMMA/BGMMA, "
                        "UTMALDG/UTMASTG/UTMAPF/UTMAREDG/UBLKCP, HMMA/IMMA/DMMA/BMMA respectively; gain 25% (matrix units) or "
                        "10% (TMA), not measured") {}

    std::optional<Finding> diagnose(const ToolContext& ctx) const override {
        const auto& data = ctx.data();
        if (!data.sass_function || data.source_text.empty()) return std::nullopt;
        std::string text;
        for (const auto& line : data.source_text) text += line + "\n";
        const auto claims = find_hardware_claims(text, data.source_name.empty() ? "candidate.cu" : data.source_name, true);
        auto unbacked = unbacked_claims(claims, count_opcodes(*data.sass_function));
        if (unbacked.empty()) return std::nullopt;
        return unbacked_claims_finding(unbacked, "this kernel's SASS shows none of it (" +
                                                     std::to_string(data.sass_function->instructions.size()) + " instructions)");
    }
};

}  // namespace

Finding unbacked_claims_finding(const std::vector<HardwareClaim>& unbacked, const std::string& what_the_sass_shows) {
    bool matrix_units = false;
    std::string features;
    for (const auto& claim : unbacked) {
        matrix_units = matrix_units || claim.feature != "TMA";
        features += (features.empty() ? "" : " and ") + claim.feature;
    }
    Finding f = make_finding("unbacked_hardware_claim", matrix_units ? kGainWhenMatrixUnitsMissing : kGainWhenTmaMissing,
                             "the candidate claims " + features + " but " + what_the_sass_shows);
    for (const auto& claim : unbacked) f.evidence.push_back(text_evidence(Evidence::Kind::source, claim.where, describe_unbacked(claim)));
    if (matrix_units) f.remedies = {rewrite_only(Rewrite::use_tensor_cores)};
    f.guidance = "Make the claimed path the one that compiles: build for sm_90a, use the CuTe MMA atom (SM90_64xNxK_... for "
                 "WGMMA) or TMA copy atom (SM90_TMA_LOAD) in the mainloop itself, not only in a declaration or a fallback; "
                 "or drop the claim.";
    return f;
}

std::unique_ptr<MicroTool> make_unbacked_hardware_claims_tool() { return std::make_unique<UnbackedHardwareClaimsTool>(); }

}  // namespace kp::analysis
