// The commands around imported tasks, run as a user runs them (the built kernelpro): optimize says
// what an imported task needs to start, bench writes its table and resumes from its manifest,
// import's exit codes. On a machine without a GPU every evaluation fails; the table still lists
// each problem with why.
#include <gtest/gtest.h>

#include <map>

#include "common/files.h"
#include "common/process.h"
#include "common/resource_locator.h"
#include "../source_tree.h"
#include "needs_torch.h"

using namespace kp;
namespace fs = std::filesystem;

namespace {

fs::path kernelpro() {
    auto self = running_executable();
    auto tree = self ? enclosing_build_tree(*self) : std::nullopt;
    return tree ? *tree / "bin" / "kernelpro" : fs::path("kernelpro");
}

ProcessResult run(const std::vector<std::string>& args, std::map<std::string, std::string> environment = {}) {
    std::vector<std::string> argv{kernelpro().string()};
    argv.insert(argv.end(), args.begin(), args.end());
    ProcessOptions options;
    options.timeout = std::chrono::seconds(300);
    options.extra_environment = std::move(environment);
    auto r = run_process(argv, options);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
    return r.ok() ? *r : ProcessResult{};
}

const fs::path kProblems = kp::testing::source_path("tests/kernelbench/problems");

// A worker that answers like a healthy GPU worker: bench's own bookkeeping runs without a GPU.
std::map<std::string, std::string> healthy_worker() {
    return {{"KERNELPRO_WORKER", kp::testing::source_path("tests/eval/fake_workers/ok.sh").string()}};
}

}  // namespace

TEST(KernelBenchCli, OptimizeOnAnImportedTaskNeedsAnLlmOrAStartingKernel) {
    KP_SKIP_WITHOUT_TORCH();
    fs::path out = make_temp_directory("kp-cli-import").value();
    auto imported = run({"import", (kProblems / "3_Matmul.py").string(), "--out", out.string(), "-q"});
    ASSERT_EQ(imported.exit_code, 0) << imported.stdout_text << imported.stderr_text;
    auto optimize = run({"optimize", (out / "3_Matmul").string(), "--budget-evals", "1", "--store", (out / "runs.db").string()});
    EXPECT_EQ(optimize.exit_code, 2);
    EXPECT_NE(optimize.stderr_text.find("has no starting kernel (its reference is a PyTorch module): pass --llm"), std::string::npos)
        << optimize.stderr_text;
}

TEST(KernelBenchCli, ImportOfNothingConvertibleExitsTwoWithTheReasons) {
    KP_SKIP_WITHOUT_TORCH();
    fs::path out = make_temp_directory("kp-cli-import-none").value();
    auto r = run({"import", (kProblems / "25_SyntaxError.py").string(), (kProblems / "26_NotKernelBench.py").string(), "--out",
                  out.string(), "-q"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.stdout_text.find("2 problems: 0 converted, 2 unconvertible"), std::string::npos) << r.stdout_text;
    EXPECT_NE(r.stdout_text.find("25_SyntaxError.py: Python syntax error at line 3"), std::string::npos) << r.stdout_text;
    EXPECT_TRUE(fs::is_regular_file(out / "import-report.md"));
}

TEST(KernelBenchCli, BenchWritesItsTableAndResumesFromItsManifest) {
    fs::path out = make_temp_directory("kp-cli-bench").value();
    fs::path tasks = kp::testing::source_path("tasks");
    auto first = run({"bench", tasks.string(), "--tasks", "gelu_f16,transpose_f32", "--budget-evals", "1", "--jobs", "2", "--out",
                      out.string()},
                     healthy_worker());
    ASSERT_EQ(first.exit_code, 0) << first.stdout_text << first.stderr_text;
    auto md = read_text_file(out / "results.md");
    ASSERT_TRUE(md.ok());
    EXPECT_NE(md->find("| gelu_f16 |"), std::string::npos) << *md;
    EXPECT_NE(md->find("| transpose_f32 |"), std::string::npos) << *md;
    EXPECT_NE(md->find("| all | 2 |"), std::string::npos) << *md;
    auto json = read_text_file(out / "results.json");
    ASSERT_TRUE(json.ok());
    EXPECT_NE(json->find("\"schema\": \"kernelpro.bench/1\""), std::string::npos);
    // A finished problem is not run again (whatever its result; an evaluator error would be).
    auto again = run({"bench", tasks.string(), "--tasks", "gelu_f16,transpose_f32", "--budget-evals", "1", "--out", out.string()}, healthy_worker());
    ASSERT_EQ(again.exit_code, 0) << again.stderr_text;
    auto manifest = read_text_file(out / "bench.json");
    ASSERT_TRUE(manifest.ok());
    bool errored = manifest->find("\"status\": \"error\"") != std::string::npos;
    if (!errored) {
        EXPECT_NE(again.stderr_text.find("(2 already done)"), std::string::npos) << again.stderr_text;
    }
    EXPECT_NE(again.stdout_text.find("| gelu_f16 |"), std::string::npos);
}

// bench runs each problem through optimize's search session: the run stores optimize's recipe, so
// `runs show` (and `runs resume`) see the bench's settings, --profile included.
TEST(KernelBenchCli, BenchStoresTheSearchSessionsRecipeWithProfiling) {
    fs::path out = make_temp_directory("kp-cli-bench-profile").value();
    fs::path tasks = kp::testing::source_path("tasks");
    auto bench = run({"bench", tasks.string(), "--tasks", "gelu_f16", "--budget-evals", "1", "--profile", "--trials", "2",
                      "--out", out.string()},
                     healthy_worker());
    ASSERT_EQ(bench.exit_code, 0) << bench.stdout_text << bench.stderr_text;
    auto show = run({"runs", "--store", (out / "runs.db").string(), "show", "1"});
    ASSERT_EQ(show.exit_code, 0) << show.stderr_text;
    EXPECT_NE(show.stdout_text.find("proposers tuner, profile on, trials 2"), std::string::npos) << show.stdout_text;
    EXPECT_NE(show.stdout_text.find((tasks / "gelu_f16").string()), std::string::npos) << show.stdout_text;
}

// --profile-tree reaches the run's recipe (so a resumed run walks the same tree) and implies
// --profile; a tree that does not parse is a usage error before any run is made.
TEST(KernelBenchCli, BenchAndOptimizeTakeAProfilingTree) {
    fs::path out = make_temp_directory("kp-cli-bench-tree").value();
    fs::path tasks = kp::testing::source_path("tasks");
    auto bench = run({"bench", tasks.string(), "--tasks", "gelu_f16", "--budget-evals", "1", "--profile-tree", "roofline",
                      "--trials", "2", "--out", out.string()},
                     healthy_worker());
    ASSERT_EQ(bench.exit_code, 0) << bench.stdout_text << bench.stderr_text;
    auto show = run({"runs", "--store", (out / "runs.db").string(), "show", "1"});
    EXPECT_NE(show.stdout_text.find("profile on (tree roofline)"), std::string::npos) << show.stdout_text;

    const fs::path bad = out / "bad-tree.toml";
    ASSERT_TRUE(write_file_atomically(bad, "schema = \"kernelpro.profiling-tree/1\"\n[root\n").ok());
    for (const std::string command : {"optimize", "bench"}) {
        auto r = command == "optimize"
                     ? run({"optimize", (tasks / "gelu_f16").string(), "--profile-tree", bad.string(), "--store", (out / "x.db").string()})
                     : run({"bench", tasks.string(), "--profile-tree", bad.string(), "--out", (out / "b2").string()});
        EXPECT_EQ(r.exit_code, 2) << command << ": " << r.stderr_text;
        EXPECT_NE(r.stderr_text.find("error: --profile-tree: "), std::string::npos) << r.stderr_text;
        EXPECT_NE(r.stderr_text.find("bad-tree.toml"), std::string::npos) << r.stderr_text;
        EXPECT_FALSE(fs::exists(out / "x.db")) << "nothing is recorded for a usage error";
    }
}
