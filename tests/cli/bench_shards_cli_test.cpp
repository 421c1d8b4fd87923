// `kernelpro bench --shard`, `bench merge` and `bench --slurm` through the real binary, on three
// example tasks. No GPU: evaluations go to the test stand-in worker (tests/eval/fake_workers/
// standin_times.sh: fake times derived from each build's key), after real nvcc builds. The Slurm
// cases need a running cluster (scripts/local-slurm start, as CI's .ci/run does) and skip, saying
// so, without one.
#include <gtest/gtest.h>

#include <chrono>
#include <regex>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli/cli_runner.h"
#include "common/files.h"
#include "common/process.h"
#include "common/tool_locator.h"
#include "source_tree.h"

namespace fs = std::filesystem;
using kp::cli_test::CliRun;

namespace {

const std::vector<std::string> kTasks{"gelu_f16", "sum_reduce_f32", "transpose_f32"};

// The stand-in worker, and one compile cache for every test of this file (they build the same
// kernels; the cache is safe to share between processes).
std::map<std::string, std::string> standin(std::map<std::string, std::string> more = {}) {
    more["KERNELPRO_WORKER"] = kp::testing::source_path("tests/eval/fake_workers/standin_times.sh").string();
    more["KERNELPRO_CACHE_DIR"] = (fs::temp_directory_path() / "kp-bench-shards-cache").string();
    return more;
}

std::string read(const fs::path& path) {
    auto text = kp::read_text_file(path);
    return text.ok() ? *text : "(cannot read " + path.string() + ")";
}

// The results table without what no two runs share: the GPU-seconds column (wall clock of each
// evaluation) in results.md; in results.json also the run ids (each shard has its own store) and
// the time it was written.
// The problems' rows and the groups' figures; not the invocation's own GPU pool throughput (a
// bench reports its session's; a merge of shards run elsewhere has none).
std::string comparable_markdown(const fs::path& dir) {
    std::string md = read(dir / "results.md");
    md = std::regex_replace(md, std::regex(R"(\nThroughput: [^\n]*\n)"), "");
    return std::regex_replace(md, std::regex(R"(\| [0-9.]+ \|\n)"), "| (GPU s) |\n");
}
nlohmann::json comparable_json(const fs::path& dir) {
    auto j = nlohmann::json::parse(read(dir / "results.json"), nullptr, false);
    if (!j.is_object()) return j;
    j.erase("created_at");
    j.erase("gpu_pool");
    for (auto& p : j["problems"]) {
        p.erase("gpu_seconds");
        p.erase("run_id");
    }
    return j;
}

class BenchShards : public testing::Test {
protected:
    void SetUp() override {
        if (!kp::locate_nvidia_tool("nvcc")) GTEST_SKIP() << "no nvcc: bench builds every candidate";
        folder_ = kp::make_temp_directory("kp-bench-shards").value();
        fs::create_directories(folder_ / "tasks");
        for (const auto& task : kTasks)
            fs::copy(kp::testing::source_path("tasks/" + task), folder_ / "tasks" / task, fs::copy_options::recursive);
    }
    void TearDown() override {
        std::error_code ignored;
        if (!folder_.empty()) fs::remove_all(folder_, ignored);
    }
    CliRun kernelpro(std::vector<std::string> args, std::map<std::string, std::string> environment = standin()) {
        return kp::cli_test::run_kernelpro(args, folder_, std::move(environment));
    }
    // The unsharded bench: the table every sharded form must give again.
    void run_whole() {
        auto whole = kernelpro({"bench", "tasks", "--budget-evals", "1", "--out", "whole", "-q"});
        ASSERT_EQ(whole.exit_code, 0) << whole.out << whole.err;
        ASSERT_NE(read(folder_ / "whole" / "results.md").find("| all | 3 | 3 |"), std::string::npos) << read(folder_ / "whole" / "results.md");
    }
    void expect_same_table(const fs::path& dir) {
        EXPECT_EQ(comparable_markdown(folder_ / dir), comparable_markdown(folder_ / "whole"));
        EXPECT_EQ(comparable_json(folder_ / dir), comparable_json(folder_ / "whole"));
    }
    fs::path folder_;
};

bool slurm_up(std::string& why) {
    if (!kp::find_executable("sbatch")) {
        why = "no Slurm: sbatch not on PATH (Debian's slurm-client; scripts/local-slurm start runs a one-node cluster)";
        return false;
    }
    kp::ProcessOptions options;
    options.timeout = std::chrono::seconds(20);
    auto nodes = kp::run_process({"sinfo", "-h", "-o", "%T"}, options);
    if (!nodes.ok() || !nodes->succeeded() || nodes->stdout_text.find_first_of("aim") == std::string::npos) {
        why = "no Slurm cluster answers sinfo with a usable node (scripts/local-slurm start runs one): " +
              (nodes.ok() ? nodes->stderr_text + nodes->stdout_text : nodes.error().message);
        return false;
    }
    return true;
}
#define KP_SKIP_WITHOUT_SLURM()                  \
    do {                                         \
        std::string why;                         \
        if (!slurm_up(why)) GTEST_SKIP() << why; \
    } while (0)

}  // namespace

// Shards run one by one here, then merged: the unsharded table, row for row (the rows dealt
// round-robin come back in the sorted order). A shard left out is reported missing.
TEST_F(BenchShards, MergedShardsGiveTheUnshardedTable) {
    run_whole();
    for (const char* shard : {"0/2", "1/2"}) {
        auto part = kernelpro({"bench", "tasks", "--budget-evals", "1", "--shard", shard, "--out", std::string("parts/shard-") + shard[0], "-q"});
        ASSERT_EQ(part.exit_code, 0) << part.out << part.err;
    }
    // Shard 0 has the first and third folder, shard 1 the second.
    EXPECT_NE(read(folder_ / "parts/shard-0/results.md").find("| gelu_f16 |"), std::string::npos);
    EXPECT_NE(read(folder_ / "parts/shard-0/results.md").find("| transpose_f32 |"), std::string::npos);
    EXPECT_EQ(read(folder_ / "parts/shard-0/results.md").find("| sum_reduce_f32 |"), std::string::npos);
    auto merged = kernelpro({"bench", "merge", "parts"});
    ASSERT_EQ(merged.exit_code, 0) << merged.out << merged.err;
    EXPECT_EQ(merged.out.find("missing:"), std::string::npos) << merged.out;
    expect_same_table("parts");

    auto half = kernelpro({"bench", "merge", "parts/shard-1", "--out", "half"});
    ASSERT_EQ(half.exit_code, 0) << half.out << half.err;
    EXPECT_NE(half.out.find("missing: shard 0: not started"), std::string::npos) << half.out;
    EXPECT_NE(read(folder_ / "half/results.md").find("| all | 1 | 1 |"), std::string::npos) << read(folder_ / "half/results.md");
}

// Each case: the documented exit code and one line that says what is wrong.
TEST_F(BenchShards, BadShardsAndNoSlurmAreOneLine) {
    for (const char* bad : {"2/2", "1", "a/3", "-1/2", "0/0"}) {
        auto r = kernelpro({"bench", "tasks", "--shard", bad, "--out", "bad"});
        EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
        EXPECT_EQ(r.err, std::string("error: --shard: expected I/K with 0 <= I < K (shard I of K, counted from 0), got '") + bad + "'\n");
    }
    fs::create_directories(folder_ / "empty-bin");
    auto env = standin({{"PATH", (folder_ / "empty-bin").string()}});
    auto no_sbatch = kernelpro({"bench", "tasks", "--slurm", "--out", "array"}, env);
    EXPECT_EQ(no_sbatch.exit_code, 3) << no_sbatch.err;
    EXPECT_EQ(no_sbatch.err,
              "error: --slurm: sbatch not found on PATH (Slurm's client; on a machine without Slurm run bench without --slurm)\n");
    auto store = kernelpro({"bench", "tasks", "--slurm", "--store", "x.db"});
    EXPECT_EQ(store.exit_code, 2);
    EXPECT_EQ(store.first_err_line(), "error: --slurm makes the shards itself, each with its own run store (OUT/shard-I): drop --store");
    auto not_a_shard = kernelpro({"bench", "merge", "tasks/gelu_f16", "--out", "m"});
    EXPECT_EQ(not_a_shard.exit_code, 2);
    EXPECT_EQ(not_a_shard.err, "error: tasks/gelu_f16 holds no bench.json and no shard-* folders (not a bench output folder)\n");
}

// One job array of two shards on the cluster; --wait merges them into the unsharded table. The
// batch script stays in OUT for the user to read.
TEST_F(BenchShards, SlurmArrayMergesToTheUnshardedTable) {
    KP_SKIP_WITHOUT_SLURM();
    auto array = kernelpro({"bench", "tasks", "--budget-evals", "1", "--slurm", "--shards", "2", "--gpus-per-task", "0", "--wait", "--out",
                            "array", "-q"});
    ASSERT_EQ(array.exit_code, 0) << array.out << array.err << read(folder_ / "array/bench.sbatch");
    EXPECT_TRUE(std::regex_search(array.out, std::regex(R"(^submitted job array [0-9]+ \(2 shards of 3 problems\): )")))
        << array.out;
    std::string script = read(folder_ / "array/bench.sbatch");
    EXPECT_NE(script.find("#SBATCH --array=0-1\n"), std::string::npos) << script;
    EXPECT_NE(script.find(" bench tasks --budget-evals 1 --quiet --shard \"$SLURM_ARRAY_TASK_ID/2\" --out "), std::string::npos) << script;
    EXPECT_TRUE(fs::is_regular_file(folder_ / "array/shard-0/runs.db"));
    EXPECT_TRUE(fs::is_regular_file(folder_ / "array/shard-1/runs.db"));
    run_whole();
    expect_same_table("array");
}

// A shard cancelled mid-run (scancel, between a problem's search and its final evaluation) and
// the same command submitted again: the finished problem is kept, the cut one resumes from its
// run, and the merged table is the unsharded one.
TEST_F(BenchShards, ACancelledShardResumesWhenSubmittedAgain) {
    KP_SKIP_WITHOUT_SLURM();
    // Every evaluation waits 2 s, one problem at a time: shard 0 (two problems) takes about 8 s.
    auto slow = standin({{"KERNELPRO_STANDIN_SLEEP", "2"}});
    std::vector<std::string> command{"bench", "tasks", "--budget-evals", "1", "--jobs", "1", "--slurm", "--shards", "2", "--gpus-per-task", "0",
                                     "--out", "array", "-q"};
    auto submitted = kernelpro(command, slow);
    ASSERT_EQ(submitted.exit_code, 0) << submitted.out << submitted.err;
    std::smatch id;
    ASSERT_TRUE(std::regex_search(submitted.out, id, std::regex(R"(job array ([0-9]+))"))) << submitted.out;
    const fs::path manifest = folder_ / "array/shard-0/bench.json";
    // Wait for: the first problem finished, the second one's run recorded, its result not yet.
    auto cut_point = [&] {
        auto j = nlohmann::json::parse(read(manifest), nullptr, false);
        if (!j.is_object() || !j.contains("problems")) return false;
        const auto& p = j["problems"];
        return p.contains("gelu_f16") && p["gelu_f16"].contains("result") && p.contains("transpose_f32") &&
               p["transpose_f32"].contains("run_id") && !p["transpose_f32"].contains("result");
    };
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (!cut_point() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    ASSERT_TRUE(cut_point()) << read(manifest);
    const auto cut_run = nlohmann::json::parse(read(manifest))["problems"]["transpose_f32"]["run_id"].get<std::int64_t>();
    auto cancel = kp::run_process({"scancel", id[1].str()});
    ASSERT_TRUE(cancel.ok() && cancel->succeeded());
    // Submitting while the array is still listed is refused, then taken once it is gone.
    CliRun again;
    deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    for (;;) {
        command.push_back("--wait");
        again = kernelpro(command);
        command.pop_back();
        if (again.exit_code != 2 || std::chrono::steady_clock::now() > deadline) break;
        EXPECT_NE(again.err.find("is still queued or running"), std::string::npos) << again.err;
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
    std::string log;
    for (const auto& e : fs::directory_iterator(folder_ / "array"))
        if (e.path().filename().string().rfind("slurm-", 0) == 0 && e.path().filename().string().find("_0.out") != std::string::npos)
            log += read(e.path());
    EXPECT_NE(log.find("bench: 2 problems (1 already done)"), std::string::npos) << log;
    // The cut problem's row comes from the run it had started, continued, not from a new one.
    auto resumed = nlohmann::json::parse(read(manifest), nullptr, false);
    EXPECT_EQ(resumed["problems"]["transpose_f32"]["result"].value("run_id", std::int64_t{0}), cut_run) << read(manifest);
    run_whole();
    expect_same_table("array");
}
