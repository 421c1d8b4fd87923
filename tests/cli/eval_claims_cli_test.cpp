// `kernelpro eval` checks what a candidate says it uses against its SASS, as optimize does: the
// corpus copy kernel whose header claims TMA gets a warning naming the claim, the honest copy none.
// Real nvcc and the SASS tools; the stand-in worker answers for the GPU.
#include <gtest/gtest.h>

#include "../source_tree.h"
#include "cli_runner.h"
#include "common/files.h"
#include "../nvidia_tools_support.h"

namespace fs = std::filesystem;
using kp::cli_test::run_kernelpro;

TEST(EvalClaimCheck, AnUnbackedClaimIsAWarningAndAnHonestKernelHasNone) {
    if (auto missing = kp::testing::missing_nvidia_tool({"nvcc", "nvdisasm", "cuobjdump"}))
        GTEST_SKIP() << "no " << *missing << " (scripts/install-nvidia-tools): nothing can be built and read";
    const fs::path folder = kp::make_temp_directory("kp-eval-claims").value();
    const std::map<std::string, std::string> environment{
        {"KERNELPRO_WORKER", kp::testing::source_path("tests/eval/fake_workers/standin_times.sh").string()},
        {"KERNELPRO_CACHE_DIR", (folder / "cache").string()}};
    const std::string task = kp::testing::source_path("tests/profile_corpus/task").string();
    auto claimed = run_kernelpro({"eval", task, kp::testing::source_path("tests/profile_corpus/claimed_tma_copy.cu").string(), "-q"},
                                 folder, environment);
    ASSERT_EQ(claimed.exit_code, 0) << claimed.out << claimed.err;
    EXPECT_NE(claimed.out.find("warning    claim check: claims TMA ("), std::string::npos) << claimed.out;
    EXPECT_NE(claimed.out.find("claimed_tma_copy.cu:1: \"TMA\") but the SASS has no UTMALDG"), std::string::npos) << claimed.out;
    auto honest = run_kernelpro({"eval", task, kp::testing::source_path("tests/profile_corpus/healthy_copy_vec4.cu").string(), "-q"},
                                folder, environment);
    ASSERT_EQ(honest.exit_code, 0) << honest.out << honest.err;
    EXPECT_EQ(honest.out.find("claim check"), std::string::npos) << honest.out;
    std::error_code ec;
    fs::remove_all(folder, ec);
}
