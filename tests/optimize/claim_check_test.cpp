// The evaluator's claim check on candidates built here: a claim in the source or in the writer's
// rationale that the SASS does not show becomes an unbacked_hardware_claim finding; a backed claim,
// a negated one or no claim at all gives none.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "build/candidate_builder.h"
#include "nvidia_tools_support.h"
#include "optimize/claim_check.h"
#include "source_tree.h"
#include "task/task_spec.h"

namespace fs = std::filesystem;
using kp::optimize::check_hardware_claims;

namespace {

// A scalar kernel whose first line is `header`.
std::string scalar_kernel(const std::string& header) {
    return header + "\n#include \"kernelpro/abi.h\"\n"
           "__global__ void scale(const float* x, float* y, long n) {\n"
           "    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;\n"
           "    if (i < n) y[i] = 2.0f * x[i];\n"
           "}\n"
           "KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t stream) {\n"
           "    long n = in[0].shape[0] * in[0].shape[1];\n"
           "    scale<<<(n + 255) / 256, 256, 0, stream>>>((const float*)in[0].data, (float*)out[0].data, n);\n"
           "    return 0;\n"
           "}\n";
}

// A kernel that really runs a 16x16x16 half-precision tile on the tensor cores (HMMA in its SASS).
const char* kWmmaKernel = R"(// Tensor cores (wmma) multiply one 16x16 tile.
#include <mma.h>
#include <cuda_fp16.h>
#include "kernelpro/abi.h"
using namespace nvcuda;
__global__ void tile(const half* a, const half* b, float* c) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}
KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t stream) {
    tile<<<1, 32, 0, stream>>>((const half*)in[0].data, (const half*)in[0].data, (float*)out[0].data);
    return 0;
}
)";

class ClaimCheck : public ::testing::Test {
protected:
    void SetUp() override {
        if (auto missing = kp::testing::missing_nvidia_tool({"nvcc", "nvdisasm", "cuobjdump"}))
            GTEST_SKIP() << "no " << *missing << " (scripts/install-nvidia-tools): nothing can be built and read";
        dir_ = fs::temp_directory_path() / ("kp-claim-check-" + std::to_string(::getpid()));
        fs::create_directories(dir_);
    }
    void TearDown() override {
        std::error_code ec;
        if (!dir_.empty()) fs::remove_all(dir_, ec);
    }
    // Built like a candidate of the corpus task; the library and its key.
    kp::BuildOutcome build(const std::string& name, const std::string& source) {
        const fs::path file = dir_ / name;
        std::ofstream(file) << source;
        auto task = kp::load_task(kp::testing::source_path("tests/profile_corpus/task"));
        EXPECT_TRUE(task) << task.error().message;
        kp::BuilderOptions options;
        options.arch = kp::detect_gpu_arch();
        kp::CandidateBuilder builder(options);
        auto built = builder.build(kp::task_build_request(*task, file));
        EXPECT_TRUE(built && built->ok()) << (built ? built->message : built.error().message);
        return built ? *built : kp::BuildOutcome{};
    }
    fs::path dir_;
};

}  // namespace

TEST_F(ClaimCheck, AClaimInTheSourceThatTheSassDoesNotShowIsAFinding) {
    const std::string source = scalar_kernel("// Tensor cores (wmma) do the scaling.");
    auto built = build("claims.cu", source);
    auto check = check_hardware_claims(source, "", built.library, built.key);
    ASSERT_TRUE(check.checked()) << check.error;
    ASSERT_EQ(check.unbacked.size(), 1u);
    EXPECT_EQ(check.unbacked[0].feature, "tensor cores");
    EXPECT_EQ(check.unbacked[0].where, "candidate.cu:1");
    auto finding = check.finding();
    ASSERT_TRUE(finding);
    EXPECT_EQ(finding->tool, "unbacked_hardware_claim");
    EXPECT_GT(finding->estimated_gain, 0.0);
    EXPECT_NE(finding->summary.find("tensor cores"), std::string::npos) << finding->summary;
    EXPECT_EQ(check.to_json()["unbacked"][0]["where"], "candidate.cu:1");
}

TEST_F(ClaimCheck, TheWritersRationaleIsCheckedToo) {
    const std::string source = scalar_kernel("// Scales a tensor by two.");
    auto built = build("plain.cu", source);
    // No claim at all: nothing is disassembled or judged.
    auto none = check_hardware_claims(source, "vectorize the loads", built.library, built.key);
    EXPECT_TRUE(none.claims.empty());
    EXPECT_FALSE(none.finding());
    // The LLM said WGMMA and TMA; the kernel has neither.
    auto check = check_hardware_claims(source, "memory-bound: a WGMMA mainloop fed by TMA loads", built.library, built.key);
    ASSERT_TRUE(check.checked()) << check.error;
    ASSERT_EQ(check.unbacked.size(), 2u);
    for (const auto& c : check.unbacked) EXPECT_EQ(c.where, "rationale");
    auto finding = check.finding();
    ASSERT_TRUE(finding);
    EXPECT_NE(finding->summary.find("WGMMA"), std::string::npos) << finding->summary;
    EXPECT_NE(finding->summary.find("TMA"), std::string::npos) << finding->summary;
    // A negated mention is no claim.
    EXPECT_TRUE(check_hardware_claims(source, "without tensor cores: not worth it here", built.library, built.key).claims.empty());
}

TEST_F(ClaimCheck, AClaimTheSassBacksIsNoFinding) {
    auto built = build("wmma.cu", kWmmaKernel);
    auto check = check_hardware_claims(kWmmaKernel, "tensor cores for the tile", built.library, built.key);
    ASSERT_TRUE(check.checked()) << check.error;
    ASSERT_FALSE(check.claims.empty());
    EXPECT_TRUE(check.unbacked.empty()) << check.to_json().dump();
    EXPECT_FALSE(check.finding());
}

TEST_F(ClaimCheck, AnUnreadableLibraryIsAnErrorNotAVerdict) {
    const std::string source = scalar_kernel("// uses WGMMA");
    std::ofstream(dir_ / "not-a-library.so") << "not an ELF file";
    auto check = check_hardware_claims(source, "", dir_ / "not-a-library.so", "");
    EXPECT_FALSE(check.claims.empty());
    EXPECT_FALSE(check.error.empty());
    EXPECT_FALSE(check.checked());
    EXPECT_FALSE(check.finding());
}
