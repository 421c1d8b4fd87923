// Runs the NcuCollector for real: needs ncu, nvcc and a GPU with counter access. Labelled "gpu";
// skipped (never passed) elsewhere.
#include <gtest/gtest.h>

#include <filesystem>

#include "common/files.h"
#include "common/process.h"
#include "profile/ncu_collector.h"
#include "profile/tool_locator.h"

using namespace kp::profile;
namespace fs = std::filesystem;

namespace {

bool gpu_present() { return fs::exists("/dev/nvidia0") || fs::exists("/dev/nvidiactl"); }

}  // namespace

class NcuLive : public ::testing::Test {
protected:
    void SetUp() override {
        if (!gpu_present()) GTEST_SKIP() << "no NVIDIA GPU device node (/dev/nvidia0)";
        if (!locate_nvidia_tool("ncu")) GTEST_SKIP() << "ncu not found (set KERNELPRO_NCU)";
        if (!locate_nvidia_tool("nvcc")) GTEST_SKIP() << "nvcc not found";
        auto dir = kp::make_temp_directory("kp-ncu-live-");
        ASSERT_TRUE(dir);
        dir_ = *dir;
        ASSERT_TRUE(kp::write_file_atomically(dir_ / "probe.cu", R"cu(
#include <cstdio>
__global__ void probe_copy(const float4* __restrict__ a, float4* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) b[i] = a[i];
}
int main() {
  const int n = 1 << 22; float4 *a, *b;
  cudaMalloc(&a, n * sizeof(float4)); cudaMalloc(&b, n * sizeof(float4));
  for (int r = 0; r < 3; ++r) probe_copy<<<(n + 255) / 256, 256>>>(a, b, n);
  printf("probe done\n");
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
)cu"));
        auto build = kp::run_process({*locate_nvidia_tool("nvcc"), "-O3", "-lineinfo", "-gencode=arch=compute_90a,code=sm_90a",
                                      "-o", (dir_ / "probe").string(), (dir_ / "probe.cu").string()});
        ASSERT_TRUE(build && build->succeeded()) << (build ? build->stderr_text : build.error().message);
    }
    void TearDown() override {
        if (!dir_.empty()) fs::remove_all(dir_);
    }
    fs::path dir_;
};

TEST_F(NcuLive, CollectsRawCountersForOneLaunch) {
    NcuCollector ncu({}, CollectorCache(dir_ / "cache"));
    NcuRequest request;
    request.metrics = {"gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum", "sm__cycles_elapsed.avg.per_second"};
    request.program_argv = {(dir_ / "probe").string()};
    request.kernel_filter = "regex:probe_copy";
    request.launch_skip = 1;
    request.cache_key = "probe-build";
    auto result = ncu.collect(request);
    ASSERT_TRUE(result) << result.error().message;
    ASSERT_EQ(result->kernels.size(), 1u);
    const KernelMetrics& k = result->kernels[0];
    EXPECT_NE(k.name.find("probe_copy"), std::string::npos);
    ASSERT_TRUE(k.number("dram__bytes_read.sum"));
    EXPECT_GT(*k.number("dram__bytes_read.sum"), 32e6);  // 64 MiB read, minus what L2 still held
    EXPECT_GT(*k.number("gpu__time_duration.sum"), 0);
    auto cached = ncu.collect(request);
    ASSERT_TRUE(cached);
    EXPECT_TRUE(cached->from_cache);
}

TEST_F(NcuLive, CollectsTheSourcePage) {
    NcuCollector ncu;
    NcuRequest request;
    request.metrics = {"gpu__time_duration.sum"};
    request.program_argv = {(dir_ / "probe").string()};
    request.kernel_filter = "regex:probe_copy";
    request.source_page = true;
    auto result = ncu.collect(request);
    ASSERT_TRUE(result) << result.error().message;
    ASSERT_FALSE(result->source_pages.empty());
    bool has_load = false;
    for (const auto& row : result->source_pages[0].rows)
        if (row.sass.rfind("LDG", 0) == 0) has_load = row.number("L2 Theoretical Sectors Global").has_value();
    EXPECT_TRUE(has_load);
    ASSERT_EQ(result->kernels.size(), 1u);
    EXPECT_TRUE(result->kernels[0].number("gpu__time_duration.sum"));
}
