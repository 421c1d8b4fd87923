// Real nvcc: these tests compile small candidates on this machine (no GPU needed).
#include <gtest/gtest.h>

#include <fstream>

#include "build/candidate_builder.h"
#include "common/files.h"
#include "common/process.h"

using namespace kp;
namespace fs = std::filesystem;

namespace {
const char* kHonest = R"(#include "kernelpro/abi.h"
// kp:tune BLOCK=128,256
#ifndef BLOCK
#define BLOCK 256
#endif
__global__ void scale(const float* x, float* y, long n) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}
KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t stream) {
    long n = in[0].shape[0];
    scale<<<(n + BLOCK - 1) / BLOCK, BLOCK, 0, stream>>>((const float*)in[0].data, (float*)out[0].data, n);
    return cudaGetLastError() != cudaSuccess;
}
)";

const char* kSideStream = R"(#include "kernelpro/abi.h"
__global__ void scale(const float* x, float* y, long n) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}
KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t) {
    cudaStream_t mine;
    cudaStreamCreate(&mine);
    long n = in[0].shape[0];
    scale<<<(n + 255) / 256, 256, 0, mine>>>((const float*)in[0].data, (float*)out[0].data, n);
    return 0;
}
)";

fs::path write_source(const fs::path& dir, const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return dir / name;
}

class CandidateBuilderTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (!find_executable("nvcc")) GTEST_SKIP() << "nvcc not found: the CUDA toolkit is needed to compile candidates";
        dir_ = make_temp_directory("kp-builder-test").value();
        BuilderOptions options;
        options.cache_directory = dir_ / "cache";
        builder_ = std::make_unique<CandidateBuilder>(options);
    }
    fs::path dir_;
    std::unique_ptr<CandidateBuilder> builder_;
};
}  // namespace

TEST_F(CandidateBuilderTest, BuildsCachesAndReportsResources) {
    auto src = write_source(dir_, "honest.cu", kHonest);
    auto first = builder_->build({src, {}, {}, true});
    ASSERT_TRUE(first.ok()) << first.error().message;
    ASSERT_TRUE(first->ok()) << first->message;
    EXPECT_TRUE(fs::exists(first->library));
    EXPECT_FALSE(first->cache_hit);
    EXPECT_NE(first->ptxas_report.find("registers"), std::string::npos) << first->ptxas_report;
    EXPECT_NE(first->command_line.find("sm_90a"), std::string::npos);
    auto second = builder_->build({src, {}, {}, true});
    ASSERT_TRUE(second.ok());
    EXPECT_TRUE(second->cache_hit);
    EXPECT_EQ(second->key, first->key);
    auto tuned = builder_->build({src, {{"BLOCK", "128"}}, {}, true});
    ASSERT_TRUE(tuned.ok());
    EXPECT_NE(tuned->key, first->key);
    EXPECT_NE(tuned->command_line.find("-DBLOCK=128"), std::string::npos);
}

TEST_F(CandidateBuilderTest, CompileErrorsComeBackTrimmed) {
    auto src = write_source(dir_, "broken.cu", "#include \"kernelpro/abi.h\"\nKP_EXPORT int kp_forward(const kp_tensor*, int, kp_tensor*, int, cudaStream_t) { return undefined_thing; }\n");
    auto r = builder_->build({src, {}, {}, true});
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->status, BuildStatus::CompileError);
    // The message cites the user's file, not the build cache's copy (candidate.cu).
    EXPECT_NE(r->message.find(src.string() + "(2): error"), std::string::npos) << r->message;
    EXPECT_EQ(r->message.find("candidate.cu"), std::string::npos) << r->message;
    EXPECT_NE(r->message.find("undefined_thing"), std::string::npos);
}

TEST_F(CandidateBuilderTest, GuardRejectsAStreamCreatingCandidate) {
    auto r = builder_->build({write_source(dir_, "side.cu", kSideStream), {}, {}, true});
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->status, BuildStatus::RejectedByGuard);
    EXPECT_NE(r->message.find("cudaStreamCreate"), std::string::npos) << r->message;
}

TEST_F(CandidateBuilderTest, MissingKpForwardIsRejected) {
    auto r = builder_->build({write_source(dir_, "nothing.cu", "__global__ void k() {}\n"), {}, {}, true});
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->status, BuildStatus::RejectedByGuard);
    EXPECT_NE(r->message.find("kp_forward"), std::string::npos);
}

TEST_F(CandidateBuilderTest, ParallelBuilds) {
    std::vector<BuildRequest> requests;
    for (const char* b : {"64", "128", "512"}) requests.push_back({write_source(dir_, "honest.cu", kHonest), {{"BLOCK", b}}, {}, true});
    auto results = builder_->build_many(requests, 3);
    ASSERT_EQ(results.size(), 3u);
    for (auto& r : results) {
        ASSERT_TRUE(r.ok());
        EXPECT_TRUE(r->ok()) << r->message;
    }
}
