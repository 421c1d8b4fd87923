// `kernelpro autoprofile` and `profile --tree` through the real binary: input errors (one line,
// exit 2) and a tree's feedback on a recorded corpus kernel.
#include <gtest/gtest.h>

#include <fstream>

#include "cli/cli_runner.h"
#include "common/tool_locator.h"
#include "source_tree.h"

using kp::cli_test::run_kernelpro;

namespace {

const std::string kSource = kp::testing::source_tree().string();
const std::string kCorpus = kSource + "/tests/profile_corpus";
const std::string kRecorded = kSource + "/tests/fixtures/h200-corpus/";

std::filesystem::path scratch(const std::string& name) {
    auto dir = std::filesystem::temp_directory_path() / ("kp_autoprofile_cli_" + name + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    return dir;
}

}  // namespace

TEST(AutoprofileCli, InputErrorsAreOneLineAndExitTwo) {
    auto dir = scratch("errors");
    {
        std::ofstream(dir / "bad.toml") << "format = \"kernelpro.profiling-tree/1\"\n[node.root]\nactions = [\"tool:nope\"]\n";
    }
    auto bad_tree = run_kernelpro({"profile", kCorpus + "/task", kCorpus + "/register_spills.cu", "--tree", (dir / "bad.toml").string()}, dir);
    EXPECT_EQ(bad_tree.exit_code, 2) << bad_tree.err;
    EXPECT_EQ(bad_tree.first_err_line(), "error: " + (dir / "bad.toml").string() +
                                             ":2: node 'root': unknown action 'tool:nope' (see `kernelpro autoprofile catalogue`)");
    auto both = run_kernelpro({"profile", kCorpus + "/task", kCorpus + "/register_spills.cu", "--tree", "full", "--tools", "register_spills"}, dir);
    EXPECT_EQ(both.exit_code, 2);
    EXPECT_EQ(both.first_err_line(), "error: --tree and --tools are exclusive: the tree picks the tools");
    auto no_budget = run_kernelpro({"autoprofile", "learn", "--tasks", kCorpus, "--recordings", kRecorded, "--out", (dir / "t.toml").string()}, dir);
    EXPECT_EQ(no_budget.exit_code, 2);
    EXPECT_EQ(no_budget.first_err_line(), "error: a budget is required: --budget-seconds S or --budget-passes P");
    auto no_manifest = run_kernelpro({"autoprofile", "eval", "--tasks", dir.string(), "--recordings", kRecorded}, dir);
    EXPECT_EQ(no_manifest.exit_code, 2);
    EXPECT_EQ(no_manifest.first_err_line(), "error: --tasks " + dir.string() + ": no manifest.toml there");
    auto nothing = run_kernelpro({"autoprofile", "eval"}, dir);
    EXPECT_EQ(nothing.exit_code, 2);
    EXPECT_EQ(nothing.first_err_line(), "error: give --tasks DIR --recordings DIR, or --tuning MANIFEST");
    auto tuner_without_tables = run_kernelpro(
        {"autoprofile", "learn", "--objective", "tuner", "--budget-passes", "4", "--out", (dir / "t.toml").string()}, dir);
    EXPECT_EQ(tuner_without_tables.exit_code, 2);
    EXPECT_EQ(tuner_without_tables.first_err_line(), "error: --objective tuner needs --tuning MANIFEST");
    auto no_tuning_file = run_kernelpro({"autoprofile", "eval", "--tuning", (dir / "none.toml").string()}, dir);
    EXPECT_EQ(no_tuning_file.exit_code, 2);
    EXPECT_NE(no_tuning_file.first_err_line().find("--tuning " + (dir / "none.toml").string() + ": not a file"), std::string::npos);
    auto catalogue = run_kernelpro({"autoprofile", "catalogue"}, dir);
    EXPECT_EQ(catalogue.exit_code, 0) << catalogue.err;
    EXPECT_NE(catalogue.out.find("tool:register_spills"), std::string::npos);
    std::filesystem::remove_all(dir);
}

TEST(AutoprofileCli, ProfileWithATreeShowsOnlyTheLeafsFindings) {
    if (!kp::locate_nvidia_tool("nvcc")) GTEST_SKIP() << "no nvcc: the corpus kernel cannot be built";
    if (!kp::locate_nvidia_tool("nvdisasm")) GTEST_SKIP() << "no nvdisasm (scripts/install-nvidia-tools)";
    auto dir = scratch("tree");
    {
        std::ofstream(dir / "spills.toml") << "format = \"kernelpro.profiling-tree/1\"\nroot = \"r\"\n[node.r]\nsignal = \"static.local_bytes\"\n"
                                              "threshold = 1\nabove = \"s\"\nbelow = \"q\"\n[node.s]\nactions = [\"tool:register_spills\"]\n"
                                              "[node.q]\nactions = []\n";
    }
    const std::vector<std::string> common = {"profile", kCorpus + "/task", kCorpus + "/register_spills.cu", "--ncu-csv",
                                             kRecorded + "register_spills.counters.json", "--ceilings", kRecorded + "ceilings.json", "-q"};
    auto args = common;
    // A tree that tests counts the roofline first (5 passes on GH100), then the spill tool's counters.
    args.insert(args.end(), {"--tree", (dir / "spills.toml").string(), "--budget-passes", "8"});
    auto run = run_kernelpro(args, dir);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_NE(run.out.find("Tree " + (dir / "spills.toml").string() + ": r > s; took tool:register_spills;"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("spill"), std::string::npos) << run.out;
    // No counters within zero passes: the spill tool (which has counters of its own) is dropped.
    args = common;
    args.insert(args.end(), {"--tree", (dir / "spills.toml").string(), "--budget-passes", "0"});
    auto tight = run_kernelpro(args, dir);
    ASSERT_EQ(tight.exit_code, 0) << tight.err;
    EXPECT_NE(tight.out.find("took nothing; dropped for the budget: tool:register_spills; 0.00 s, 0 passes"), std::string::npos) << tight.out;
    std::filesystem::remove_all(dir);
}
