// bench and optimize --gpus through the real kernelpro binary. Without a GPU, stand-in workers
// (tests/eval/fake_workers) take the GPU's place: a pool of two whose second GPU dies gives its
// evaluations back to the first and is reported. With a GPU (skipped visibly without one): two
// workers sharing one GPU (--gpus 0,0) and a bench with the pool against the serial loop.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../gpu_test_support.h"
#include "../source_tree.h"
#include "cli_runner.h"

using namespace kp;
using kp::cli_test::run_kernelpro;

namespace fs = std::filesystem;

namespace {

std::map<std::string, std::string> stand_in(const std::string& script) {
    return {{"KERNELPRO_WORKER", kp::testing::source_path("tests/eval/fake_workers/" + script).string()}};
}

nlohmann::json read_json(const fs::path& path) {
    auto text = read_text_file(path);
    return text.ok() ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
}

fs::path scratch(const std::string& prefix) { return make_temp_directory(prefix).value(); }

}  // namespace

TEST(GpuPoolCli, BadGpusValuesAreOneLineUsageErrors) {
    fs::path dir = scratch("kp-gpus-bad");
    const std::string tasks = kp::testing::source_path("tasks").string();
    for (const char* bad : {"none", "0,", "-2", "0", "1.5"}) {
        auto bench = run_kernelpro({"bench", tasks, "--gpus", bad}, dir);
        EXPECT_EQ(bench.exit_code, 2) << bad << "\n" << bench.err;
        EXPECT_NE(bench.first_err_line().find("--gpus"), std::string::npos) << bench.err;
        auto optimize = run_kernelpro({"optimize", (fs::path(tasks) / "gelu_f16").string(), "--gpus", bad}, dir);
        EXPECT_EQ(optimize.exit_code, 2) << bad << "\n" << optimize.err;
    }
}

TEST(GpuPoolCli, MoreGpusThanTheMachineHasIsAnEnvironmentError) {
    fs::path dir = scratch("kp-gpus-many");
    auto run = run_kernelpro({"bench", kp::testing::source_path("tasks").string(), "--tasks", "gelu_f16", "--gpus", "64"}, dir);
    EXPECT_EQ(run.exit_code, 3) << run.err;
    // Without a GPU: "no GPU: ..."; on a machine with fewer than 64: "--gpus 64: this machine has N GPUs".
    const std::string line = run.first_err_line();
    EXPECT_TRUE(line.find("no GPU") != std::string::npos || line.find("--gpus 64: this machine has") != std::string::npos) << run.err;
}

TEST(GpuPoolCli, AFailedGpuGivesItsEvaluationsBackAndIsReported) {
    fs::path out = scratch("kp-gpus-retire");
    const std::string tasks = kp::testing::source_path("tasks").string();
    auto run = run_kernelpro({"bench", tasks, "--tasks", "gelu_f16,transpose_f32", "--budget-evals", "2", "--gpus", "1,0", "--jobs", "4",
                              "--out", (out / "bench").string()},
                             out, stand_in("fails_on_gpu_1.sh"));
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    EXPECT_NE(run.err.find("warning: retired GPU 1"), std::string::npos) << run.err;
    auto results = read_json(out / "bench" / "results.json");
    ASSERT_TRUE(results.is_object());
    const auto& pool = results["gpu_pool"];
    ASSERT_EQ(pool["retired"].size(), 1u) << pool.dump(2);
    // The broken GPU 1 is the first slot, so the first evaluation meets it (free slots go lowest first).
    EXPECT_EQ(pool["retired"][0]["slot"], 0);
    EXPECT_EQ(pool["retired"][0]["device"]["index"], 1);
    const auto& throughput = pool["throughput"];
    EXPECT_EQ(throughput["gpus"], 2);
    EXPECT_GT(throughput["evaluations"].get<long>(), 0);
    EXPECT_EQ(throughput["evaluations_per_gpu"][0], 0);  // nothing finished on the dead GPU
    EXPECT_GT(throughput["candidates_per_gpu_hour"].get<double>(), 0);
    for (const char* key : {"gpu_busy_fraction", "compile_timing_overlap"}) EXPECT_TRUE(throughput[key].is_number()) << key;
    auto md = read_text_file(out / "bench" / "results.md");
    ASSERT_TRUE(md.ok());
    EXPECT_NE(md->find("Throughput: "), std::string::npos) << *md;
    EXPECT_NE(md->find("Retired: GPU 1"), std::string::npos) << *md;
    // Every evaluation records the GPU it ran on: all of them the surviving GPU 0.
    int seen = 0;
    std::error_code ec;
    for (const auto& e : fs::recursive_directory_iterator(out / "bench", ec)) {
        if (e.path().parent_path().filename() != "evaluations") continue;
        auto report = read_json(e.path());
        EXPECT_EQ(report["device"]["index"], 0) << e.path();
        EXPECT_EQ(report["device"]["uuid"], "GPU-fake-0") << e.path();
        ++seen;
    }
    EXPECT_GT(seen, 0);
}

TEST(GpuPoolCli, OptimizeOnAPoolRetiresTheFailedGpuAndFinishesOnTheOther) {
    fs::path out = scratch("kp-gpus-optimize-retire");
    auto run = run_kernelpro({"optimize", kp::testing::source_path("tasks/gelu_f16").string(), "--gpus", "1,0", "--budget-evals", "5",
                              "--out", (out / "run").string(), "--store", (out / "runs.db").string(), "-q"},
                             out, stand_in("fails_on_gpu_1.sh"));
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    EXPECT_NE(run.err.find("run 1: evaluation_budget after 5 evaluations"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("warning: retired GPU 1"), std::string::npos) << run.err;
    auto pool = read_json(out / "run" / "gpu_pool.json");
    EXPECT_EQ(pool["throughput"]["gpus"], 2);
    EXPECT_EQ(pool["retired"].size(), 1u);
    auto summary = read_text_file(out / "run" / "summary.md");
    ASSERT_TRUE(summary.ok());
    EXPECT_NE(summary->find("## GPU pool"), std::string::npos);
    EXPECT_NE(summary->find("Retired: GPU 1"), std::string::npos);
}

// On the GPU (the lead's H200): two workers share GPU 0, over three example tasks, and the
// table and each evaluation's device come out as with one worker.
TEST(GpuPoolCli, TwoWorkersSharingOneGpuBenchThreeTasks) {
    KP_SKIP_WITHOUT_GPU();
    fs::path out = scratch("kp-gpus-share");
    const std::string tasks = kp::testing::source_path("tasks").string();
    auto pooled = run_kernelpro({"bench", tasks, "--tasks", "gelu_f16,transpose_f32,softmax_rows_f32", "--budget-evals", "4", "--gpus", "0,0",
                                 "--out", (out / "pool").string(), "-q"},
                                out);
    ASSERT_EQ(pooled.exit_code, 0) << pooled.err;
    auto serial = run_kernelpro({"bench", tasks, "--tasks", "gelu_f16,transpose_f32,softmax_rows_f32", "--budget-evals", "4", "--jobs", "1",
                                 "--out", (out / "serial").string(), "-q"},
                                out);
    ASSERT_EQ(serial.exit_code, 0) << serial.err;
    auto p = read_json(out / "pool" / "results.json"), s = read_json(out / "serial" / "results.json");
    // Two slots on one GPU: they take turns on it, so the figures are per GPU, not per slot.
    EXPECT_EQ(p["gpu_pool"]["throughput"]["gpus"], 1);
    EXPECT_EQ(p["gpu_pool"]["throughput"]["slots"], 2);
    EXPECT_TRUE(p["gpu_pool"]["retired"].empty()) << p["gpu_pool"].dump(2);
    EXPECT_GT(p["gpu_pool"]["throughput"]["compile_timing_overlap"].get<double>(), 0);
    std::cerr << "pool:   " << p["gpu_pool"]["throughput"].dump() << "\nserial: " << s["gpu_pool"]["throughput"].dump() << "\n";
    // The same verdicts as the serial loop: two workers on one GPU never time inside each other's
    // kernels (they take turns), so no baseline or candidate becomes invalid_timing.
    ASSERT_EQ(p["problems"].size(), 3u) << p.dump(2);
    for (size_t i = 0; i < p["problems"].size(); ++i) {
        EXPECT_EQ(p["problems"][i]["status"], "correct") << p["problems"][i].dump(2);
        EXPECT_EQ(p["problems"][i]["status"], s["problems"][i]["status"]) << p["problems"][i]["name"];
    }
    std::error_code ec;
    for (const auto& e : fs::recursive_directory_iterator(out / "pool", ec)) {
        if (e.path().parent_path().filename() != "evaluations") continue;
        auto report = read_json(e.path());
        EXPECT_EQ(report["device"]["index"], 0) << e.path();
        EXPECT_EQ(report["device"]["uuid"].get<std::string>().rfind("GPU-", 0), 0u) << e.path();
    }
}

TEST(GpuPoolCli, OptimizeOnTwoWorkersEvaluatesRoundsOfTwo) {
    KP_SKIP_WITHOUT_GPU();
    fs::path out = scratch("kp-gpus-optimize");
    auto run = run_kernelpro({"optimize", kp::testing::source_path("tasks/gelu_f16").string(), "--gpus", "0,0", "--budget-evals", "7",
                              "--seed", "3", "--out", (out / "run").string(), "--store", (out / "runs.db").string(), "-q"},
                             out);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_NE(run.err.find("throughput: "), std::string::npos) << run.err;
    auto pool = read_json(out / "run" / "gpu_pool.json");
    EXPECT_EQ(pool["throughput"]["gpus"], 1);  // two slots, one GPU
    EXPECT_EQ(pool["throughput"]["slots"], 2);
    auto summary = read_text_file(out / "run" / "summary.md");
    ASSERT_TRUE(summary.ok());
    EXPECT_NE(summary->find("## GPU pool"), std::string::npos);
}
