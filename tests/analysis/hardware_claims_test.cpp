// Claims of WGMMA, TMA and tensor cores against recorded SASS (tests/fixtures/cutlass): CUTLASS's
// Hopper tutorial shows HGMMA and UTMALDG; a CuTe row sum shows neither.
#include <gtest/gtest.h>

#include "../profile/fixture_path.h"
#include "analysis/hardware_claims.h"
#include "profile/nvdisasm_json.h"

using namespace kp;
using namespace kp::analysis;

namespace {
OpcodeCounts counts_of(const std::string& fixture) {
    auto program = profile::parse_nvdisasm_json(kp::testing::read_fixture(fixture));
    EXPECT_TRUE(program.ok());
    std::vector<const profile::SassFunction*> functions;
    for (const auto& f : program->functions) functions.push_back(&f);
    return count_opcodes(functions);
}
}  // namespace

TEST(HardwareClaims, FindsClaimsWithTheirLineAndIgnoresNegations) {
    auto claims = find_hardware_claims("// a warp-specialized GEMM\n// mainloop: wgmma.mma_async fed by TMA\nint x;\n", "candidate.cu", true);
    ASSERT_EQ(claims.size(), 2u);
    EXPECT_EQ(claims[0].feature, "WGMMA");
    EXPECT_EQ(claims[0].where, "candidate.cu:2");
    EXPECT_EQ(claims[1].feature, "TMA");
    EXPECT_TRUE(find_hardware_claims("// no tensor cores here, without TMA\n", "candidate.cu", true).empty());
    auto atoms = find_hardware_claims("using Atom = SM80_16x8x16_F32BF16BF16F32_TN;", "rationale", false);
    ASSERT_EQ(atoms.size(), 1u);
    EXPECT_EQ(atoms[0].feature, "tensor cores");
    EXPECT_EQ(atoms[0].where, "rationale");
}

TEST(HardwareClaims, RecordedHopperSassBacksWgmmaAndTmaAndARowSumDoesNot) {
    auto claims = find_hardware_claims("WGMMA + TMA on tensor cores", "rationale", false);
    ASSERT_EQ(claims.size(), 3u);
    EXPECT_TRUE(unbacked_claims(claims, counts_of("cutlass/wgmma_tma_sm90.nvdisasm.json")).empty());
    auto unbacked = unbacked_claims(claims, counts_of("cutlass/cute_rowsum.nvdisasm.json"));
    ASSERT_EQ(unbacked.size(), 3u);
    EXPECT_EQ(describe_unbacked(unbacked[0]), "claims WGMMA (rationale: \"WGMMA\") but the SASS has no HGMMA/QGMMA/IGMMA/BGMMA");
    // HMMA (mma.sync) shows tensor cores but not WGMMA.
    auto hmma = unbacked_claims(claims, counts_of("h200/nvdisasm.json"));
    ASSERT_EQ(hmma.size(), 2u);
    EXPECT_EQ(hmma[0].feature, "WGMMA");
    EXPECT_EQ(hmma[1].feature, "TMA");
}
