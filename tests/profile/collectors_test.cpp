#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "common/files.h"
#include "common/process.h"
#include "profile/ncu_collector.h"
#include "profile/ptxas_collector.h"
#include "profile/sass_collector.h"
#include "profile/sass_summary.h"
#include "profile/timeline_collector.h"
#include "profile/tool_locator.h"
#include "fixture_path.h"

using namespace kp::profile;
namespace fs = std::filesystem;

namespace {

bool contains_sequence(const std::vector<std::string>& argv, const std::vector<std::string>& seq) {
    return std::search(argv.begin(), argv.end(), seq.begin(), seq.end()) != argv.end();
}

}  // namespace

TEST(NcuCollector, BuildsTheLiveMetricsCommand) {
    NcuCollector ncu("/opt/ncu/ncu");
    NcuRequest request;
    request.metrics = {"gpu__time_duration.sum", "dram__bytes_read.sum"};
    request.program_argv = {"./runner", "--candidate", "c.so"};
    request.kernel_filter = "regex:^copy";
    request.launch_skip = 2;
    request.launch_count = 1;
    auto argv = ncu.profile_command(request);
    EXPECT_EQ(argv.front(), "/opt/ncu/ncu");
    EXPECT_TRUE(contains_sequence(argv, {"--clock-control", "none"}));
    EXPECT_TRUE(contains_sequence(argv, {"--print-units", "base"}));
    EXPECT_NE(std::find(argv.begin(), argv.end(), "--csv"), argv.end());
    EXPECT_TRUE(contains_sequence(argv, {"--metrics", "gpu__time_duration.sum,dram__bytes_read.sum"}));
    EXPECT_TRUE(contains_sequence(argv, {"-k", "regex:^copy"}));
    EXPECT_TRUE(contains_sequence(argv, {"-s", "2"}));
    EXPECT_TRUE(contains_sequence(argv, {"-c", "1"}));
    EXPECT_TRUE(contains_sequence(argv, {"--", "./runner", "--candidate", "c.so"}));
    EXPECT_EQ(argv.back(), "c.so");
    EXPECT_EQ(std::find(argv.begin(), argv.end(), "--export"), argv.end());
}

TEST(NcuCollector, SourcePageExportsAndImports) {
    NcuCollector ncu("ncu");
    NcuRequest request;
    request.metrics = {"gpu__time_duration.sum"};
    request.program_argv = {"./runner"};
    request.source_page = true;
    auto argv = ncu.profile_command(request, fs::path("/tmp/x/profile"));
    EXPECT_TRUE(contains_sequence(argv, {"--section", "SourceCounters"}));
    EXPECT_TRUE(contains_sequence(argv, {"--section", "WarpStateStats"}));
    EXPECT_TRUE(contains_sequence(argv, {"--export", "/tmp/x/profile"}));
    EXPECT_EQ(std::find(argv.begin(), argv.end(), "--csv"), argv.end());
    auto source = ncu.import_command("/tmp/x/profile.ncu-rep", "source");
    EXPECT_TRUE(contains_sequence(source, {"--page", "source", "--print-source", "sass"}));
    EXPECT_TRUE(contains_sequence(source, {"--print-units", "base"}));
    auto raw = ncu.import_command("/tmp/x/profile.ncu-rep", "raw");
    EXPECT_TRUE(contains_sequence(raw, {"--import", "/tmp/x/profile.ncu-rep", "--csv"}));
}

TEST(NcuCollector, CostGrowsWithWhatIsAsked) {
    // Raw counters are cheap; composite throughputs and the source page are not.
    std::vector<std::string> raw = {"gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum"};
    int cheap = estimate_ncu_replay_passes(raw, {}, false);
    EXPECT_LE(cheap, 2);
    EXPECT_EQ(estimate_ncu_replay_passes({"launch__grid_size"}, {}, false), 1);
    int with_throughput = estimate_ncu_replay_passes({"sm__throughput.avg.pct_of_peak_sustained_elapsed"}, {}, false);
    EXPECT_EQ(with_throughput, 8);  // measured on H200
    EXPECT_GT(estimate_ncu_replay_passes(raw, {}, true), cheap + 10);
    EXPECT_LE(estimate_ncu_replay_passes(raw, {"SpeedOfLight", "WarpStateStats", "SourceCounters", "Occupancy", "LaunchStats",
                                               "MemoryWorkloadAnalysis", "ComputeWorkloadAnalysis", "SchedulerStats"}, true), 38);

    NcuCollector ncu("ncu");
    NcuRequest request;
    request.metrics = raw;
    request.kernel_seconds = 0.01;
    request.program_seconds = 1.0;
    auto base = ncu.cost(request);
    request.launch_count = 3;
    auto three = ncu.cost(request);
    EXPECT_GT(three.seconds, base.seconds);
    EXPECT_EQ(three.replay_passes, base.replay_passes);
}

TEST(NcuCollector, ReportsMissingProgram) {
    NcuCollector ncu("ncu");
    auto result = ncu.collect(NcuRequest{});
    ASSERT_FALSE(result);
    EXPECT_NE(result.error().message.find("no program"), std::string::npos);
}

TEST(CollectorCache, StoresAndLoadsByKey) {
    auto dir = kp::make_temp_directory("kp-cache-test-");
    ASSERT_TRUE(dir);
    CollectorCache cache(*dir / "cache");
    std::string key = CollectorCache::make_key({"ncu", "buildhash", "metrics"});
    EXPECT_NE(key, CollectorCache::make_key({"ncu", "buildhas", "hmetrics"}));
    EXPECT_FALSE(cache.load(key));
    ASSERT_TRUE(cache.store(key, "payload"));
    EXPECT_EQ(*cache.load(key), "payload");
    fs::remove_all(*dir);
}

TEST(PtxasCollector, ParsesASavedLog) {
    PtxasCollector collector;
    auto report = collector.collect(kp::testing::fixture_path("h200/ptxas_v.txt"));
    ASSERT_TRUE(report) << report.error().message;
    EXPECT_EQ(report->functions.size(), 9u);
    EXPECT_EQ(collector.cost().replay_passes, 0);
    EXPECT_FALSE(collector.collect("/nonexistent/ptxas.log"));
}

TEST(ToolLocator, EnvironmentVariableWinsAndIsChecked) {
    ::setenv("KERNELPRO_NVDISASM", "/nonexistent/nvdisasm", 1);
    EXPECT_FALSE(locate_nvidia_tool("nvdisasm"));
    auto error = require_nvidia_tool("nvdisasm");
    ASSERT_FALSE(error);
    EXPECT_NE(error.error().message.find("KERNELPRO_NVDISASM"), std::string::npos);
    ::unsetenv("KERNELPRO_NVDISASM");
    EXPECT_FALSE(locate_nvidia_tool("surely-not-a-tool-kp"));
}

// --- SASS collector on real nvcc output (needs nvcc and nvdisasm; no GPU) ---

class SassCollectorOnNvcc : public ::testing::Test {
protected:
    void SetUp() override {
        if (!locate_nvidia_tool("nvdisasm")) GTEST_SKIP() << "nvdisasm not found: run scripts/install-nvidia-tools";
        if (!locate_nvidia_tool("nvcc")) GTEST_SKIP() << "nvcc not found";
        auto dir = kp::make_temp_directory("kp-sass-test-");
        ASSERT_TRUE(dir);
        dir_ = *dir;
        source_ = dir_ / "probe.cu";
        ASSERT_TRUE(kp::write_file_atomically(source_, R"cu(
__global__ void copy_float4(const float4* __restrict__ a, float4* __restrict__ b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i];
}
__global__ void __launch_bounds__(256, 8) spill_lots(const float* a, float* b, int n) {
  float r[64]; int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
  #pragma unroll
  for (int k = 0; k < 64; k++) r[k] = a[(i + k * 97) % n] * (k + 1);
  float s = 0;
  #pragma unroll
  for (int k = 0; k < 64; k++) s += r[k] * r[63 - k];
  b[i] = s;
}
__global__ void scale_double(const double* a, double* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i] * 3.0 + 1.0;
}
)cu"));
    }
    void TearDown() override {
        if (!dir_.empty()) fs::remove_all(dir_);
    }
    fs::path compile(const std::vector<std::string>& flags, const std::string& output) {
        std::vector<std::string> argv = {*locate_nvidia_tool("nvcc")};
        argv.insert(argv.end(), flags.begin(), flags.end());
        argv.insert(argv.end(), {"-o", (dir_ / output).string(), source_.string()});
        auto run = kp::run_process(argv);
        EXPECT_TRUE(run && run->succeeded()) << (run ? run->stderr_text : run.error().message);
        return dir_ / output;
    }
    static SassSummary summary(const SassCollection& sass, const std::string& kernel) {
        const SassFunction* f = sass.find_function(kernel);
        EXPECT_NE(f, nullptr) << kernel;
        return f ? summarize_sass(*f) : SassSummary{};
    }
    fs::path dir_, source_;
};

TEST_F(SassCollectorOnNvcc, CubinShowsVectorLoadsSpillsAndDoubles) {
    fs::path cubin = compile({"-cubin", "-arch=sm_90a", "-lineinfo"}, "probe.cubin");
    SassCollector collector;
    auto sass = collector.collect(SassRequest{cubin, "", std::chrono::seconds(120)});
    ASSERT_TRUE(sass) << sass.error().message;
    ASSERT_EQ(sass->cubins.size(), 1u);
    EXPECT_EQ(sass->cubins[0].program.sm_major, 9);

    SassSummary copy = summary(*sass, "copy_float4(const float4 *, float4 *, int)");
    EXPECT_EQ(copy.global_loads.bits128, 1);
    EXPECT_EQ(copy.global_loads.bits32, 0);
    SassSummary spill = summary(*sass, "_Z10spill_lotsPKfPfi");
    EXPECT_GT(spill.local_stores, 0);
    EXPECT_GT(spill.local_loads, 0);
    SassSummary dbl = summary(*sass, "scale_double");
    EXPECT_GT(dbl.dfma + dbl.dmul, 0);

    // -lineinfo gives every instruction of the kernel body a probe.cu line.
    const SassFunction* f = sass->find_function("copy_float4");
    ASSERT_NE(f, nullptr);
    bool has_line = false;
    for (const auto& ins : f->instructions)
        if (ins.base_opcode() == "LDG") has_line = ins.location && ins.location->file.find("probe.cu") != std::string::npos && ins.location->line == 4;
    EXPECT_TRUE(has_line);
}

TEST_F(SassCollectorOnNvcc, SharedLibraryGoesThroughCuobjdumpAndCaches) {
    if (!locate_nvidia_tool("cuobjdump")) GTEST_SKIP() << "cuobjdump not found: run scripts/install-nvidia-tools";
    fs::path library = compile({"-shared", "-Xcompiler", "-fPIC", "-gencode=arch=compute_90a,code=sm_90a"}, "probe.so");
    SassCollector collector({}, {}, CollectorCache(dir_ / "cache"));
    auto sass = collector.collect(SassRequest{library, "build-123"});
    ASSERT_TRUE(sass) << sass.error().message;
    EXPECT_FALSE(sass->from_cache);
    EXPECT_NE(sass->find_function("_Z11copy_float4PK6float4PS_i"), nullptr);
    const ResourceUsage* usage = sass->find_resources("spill_lots");
    ASSERT_NE(usage, nullptr);
    EXPECT_GT(usage->stack, 0);

    auto again = collector.collect(SassRequest{library, "build-123"});
    ASSERT_TRUE(again) << again.error().message;
    EXPECT_TRUE(again->from_cache);
    EXPECT_NE(again->find_function("scale_double"), nullptr);
}

TEST(SassCollector, MissingBinaryIsAnError) {
    SassCollector collector("/bin/true", "/bin/true");
    auto sass = collector.collect(SassRequest{"/nonexistent/x.so", "", std::chrono::seconds(120)});
    ASSERT_FALSE(sass);
    EXPECT_NE(sass.error().message.find("no such file"), std::string::npos);
}

// ncu stand-in (no GPU on CI): prints a recorded CSV and counts its runs. The cache must answer
// a second collect for the same key even though the program's argv (scratch paths) changed, and
// must not answer a request for other metrics.
TEST(NcuCollector, CachesByKeyAndMetricsNotByArgv) {
    auto dir = kp::make_temp_directory("kp-ncu-cache-");
    ASSERT_TRUE(dir);
    const fs::path csv = kp::testing::fixture_path("h200/ncu_metrics_long.csv");
    const fs::path runs = *dir / "runs";
    const fs::path fake = *dir / "ncu";
    ASSERT_TRUE(kp::write_file_atomically(fake, "#!/bin/sh\necho run >> '" + runs.string() + "'\ncat '" + csv.string() + "'\n"));
    fs::permissions(fake, fs::perms::owner_all, fs::perm_options::add);
    NcuCollector ncu(fake.string(), CollectorCache(*dir / "cache"));
    NcuRequest request;
    request.metrics = {"gpu__time_duration.sum"};
    request.program_argv = {"/tmp/scratch-1/runner"};
    request.cache_key = "build-a";
    auto first = ncu.collect(request);
    ASSERT_TRUE(first) << first.error().message;
    EXPECT_FALSE(first->from_cache);
    EXPECT_FALSE(first->kernels.empty());
    const std::string& command = first->commands.at(0);
    EXPECT_NE(command.find("--section-folder"), std::string::npos) << command;

    request.program_argv = {"/tmp/scratch-2/runner"};
    auto second = ncu.collect(request);
    ASSERT_TRUE(second);
    EXPECT_TRUE(second->from_cache);
    EXPECT_EQ(second->kernels.size(), first->kernels.size());

    request.refresh_cache = true;  // --no-cache: collect again (and store), do not read
    auto refreshed = ncu.collect(request);
    ASSERT_TRUE(refreshed);
    EXPECT_FALSE(refreshed->from_cache);
    request.refresh_cache = false;

    request.metrics.push_back("dram__bytes_read.sum");
    auto third = ncu.collect(request);
    ASSERT_TRUE(third);
    EXPECT_FALSE(third->from_cache);
    auto count = kp::read_text_file(runs);
    ASSERT_TRUE(count);
    EXPECT_EQ(std::count(count->begin(), count->end(), '\n'), 3);
    fs::remove_all(*dir);
}

// The timeline collector with a stand-in for a traced program (no GPU on CI): the "program"
// writes a recorded trace where the injection library would ($KP_TIMELINE_OUT), and must have
// been given CUDA_INJECTION64_PATH. The trace is parsed, cached by key, and a program that
// writes nothing is a clear error.
TEST(TimelineCollector, RunsTheProgramUnderTheInjectionAndCachesTheTrace) {
    auto dir = kp::make_temp_directory("kp-timeline-collector-");
    ASSERT_TRUE(dir);
    const fs::path library = *dir / "libkp_timeline.so";
    ASSERT_TRUE(kp::write_file_atomically(library, "not really a library"));
    const std::string trace = kp::testing::source_path("tests/gpu/fixtures/timeline_small.json").string();
    const fs::path runs = *dir / "runs";
    const fs::path program = *dir / "traced";
    ASSERT_TRUE(kp::write_file_atomically(program, "#!/bin/sh\necho run >> '" + runs.string() + "'\n"
                                                   "[ \"$CUDA_INJECTION64_PATH\" = '" + library.string() + "' ] || exit 3\n"
                                                   "cp '" + trace + "' \"$KP_TIMELINE_OUT\"\n"));
    fs::permissions(program, fs::perms::owner_all, fs::perm_options::add);
    TimelineCollector collector(library, CollectorCache(*dir / "cache"));
    TimelineRequest request;
    request.program_argv = {program.string()};
    request.cache_key = "build-a";
    auto first = collector.collect(request);
    ASSERT_TRUE(first) << first.error().message;
    EXPECT_FALSE(first->from_cache);
    EXPECT_FALSE(first->timeline.kernels.empty());
    auto second = collector.collect(request);
    ASSERT_TRUE(second);
    EXPECT_TRUE(second->from_cache);
    EXPECT_EQ(second->timeline.kernels.size(), first->timeline.kernels.size());
    auto count = kp::read_text_file(runs);
    ASSERT_TRUE(count);
    EXPECT_EQ(std::count(count->begin(), count->end(), '\n'), 1);

    TimelineRequest silent;
    silent.program_argv = {"/bin/true"};
    auto none = collector.collect(silent);
    ASSERT_FALSE(none);
    EXPECT_NE(none.error().message.find("wrote no trace"), std::string::npos) << none.error().message;
    EXPECT_GT(collector.cost(request).seconds, 0.0);
    EXPECT_EQ(collector.cost(request).replay_passes, 0);
    fs::remove_all(*dir);
}
