// `kernelpro optimize` and `kernelpro runs resume` as a user runs them (the built binary, started
// as a process, on a real run store): unknown plug-in names and a missing API key are one line and
// the documented exit code, before anything is evaluated; a run resumes from another folder with
// the recipe it started with (its task by the recorded path, its proposers and script, its own
// output folder); a provider run whose key is gone does not resume at all.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "../source_tree.h"
#include "../store/temp_store.h"
#include "common/files.h"
#include "common/process.h"

namespace {

namespace fs = std::filesystem;

const std::string kTask = kp::testing::source_path("tasks/gelu_f16").string();
const std::string kScript = kp::testing::source_path("examples/llm-scripts/gelu_f16.jsonl").string();

std::string kernelpro() { return fs::exists(KP_KERNELPRO_BINARY) ? KP_KERNELPRO_BINARY : "kernelpro"; }

// No key of any provider reaches the command unless a test gives one.
const std::map<std::string, std::string> kNoKeys{
    {"OPENAI_API_KEY", ""}, {"ANTHROPIC_API_KEY", ""}, {"KERNELPRO_LLM_API_KEY", ""}, {"KERNELPRO_LLM", ""},
    {"KERNELPRO_LLM_CONFIG", ""}, {"OPENAI_BASE_URL", ""}, {"KERNELPRO_LLM_BASE_URL", ""}};

// A worker that answers like a healthy GPU worker, so the loop runs on machines without a GPU too.
const std::string kHealthyWorker = kp::testing::source_path("tests/eval/fake_workers/ok.sh").string();

kp::ProcessResult run(std::vector<std::string> args, const fs::path& folder, std::map<std::string, std::string> env = {}) {
    args.insert(args.begin(), kernelpro());
    kp::ProcessOptions options;
    options.working_directory = folder.string();
    options.extra_environment = kNoKeys;
    for (auto& [name, value] : env) options.extra_environment[name] = value;
    auto result = kp::run_process(args, options);
    EXPECT_TRUE(result) << (result ? "" : result.error().message);
    return result ? *result : kp::ProcessResult{};
}

// The one line of an error, and nothing but it.
void expect_one_error(const kp::ProcessResult& result, int exit_code, const std::string& line) {
    EXPECT_EQ(result.exit_code, exit_code) << result.stderr_text;
    EXPECT_EQ(result.stderr_text, line + "\n");
}

}  // namespace

TEST(OptimizeCommand, UnknownPlugInNamesAreOneErrorListingTheRegisteredOnes) {
    kp::test_support::TempDirectory dir;
    expect_one_error(run({"optimize", kTask, "--proposer", "tuner,annealer"}, dir.path()), 2,
                     "error: --proposer: unknown proposer 'annealer' (registered: exhaustive, llm, random, tuner)");
    expect_one_error(run({"optimize", kTask, "--strategy", "anneal"}, dir.path()), 2,
                     "error: --strategy: unknown selection policy 'anneal' (registered: greedy, mcts)");
    auto provider = run({"optimize", kTask, "--llm", "gemini:pro"}, dir.path());
    EXPECT_EQ(provider.exit_code, 2);
    EXPECT_EQ(provider.stderr_text.rfind("error: proposer llm: LLM spec 'gemini:pro': unknown LLM provider 'gemini' "
                                         "(registered: anthropic, openai, script; aliases: ",
                                         0),
              0u)
        << provider.stderr_text;
    expect_one_error(run({"optimize", kTask, "--objective", "power"}, dir.path()), 2,
                     "error: --objective: unknown objective 'power' (registered: edp, energy, time)");
    expect_one_error(run({"optimize", kTask, "--objective", "energy", "--max-slowdown", "lots"}, dir.path()), 2,
                     "error: --max-slowdown must be a fraction such as 2% or 0.02, got 'lots'");
    expect_one_error(run({"optimize", kTask, "--budget-evals", "2.5"}, dir.path()), 2,
                     "error: evaluation_budget (--budget-evals): the limit must be a whole number, got 2.5");
    EXPECT_FALSE(fs::exists(dir.path() / ".kernelpro"));  // nothing was started
}

TEST(OptimizeCommand, AMissingApiKeyIsAnEnvironmentError) {
    kp::test_support::TempDirectory dir;
    expect_one_error(run({"optimize", kTask, "--llm", "anthropic:claude-sonnet-4"}, dir.path()), 3,
                     "error: proposer llm: no API key for anthropic:claude-sonnet-4: set ANTHROPIC_API_KEY or "
                     "KERNELPRO_LLM_API_KEY (or KERNELPRO_LLM_BASE_URL for a local server)");
    expect_one_error(run({"optimize", kTask, "--proposer", "llm"}, dir.path()), 2,
                     "error: proposer llm: no LLM chosen: pass PROVIDER:MODEL (e.g. openai:gpt-4.1), set KERNELPRO_LLM, "
                     "or set `model` under [llm] in the config file");
}

// Started in one folder with a relative task, script and output folder; resumed from another
// folder: the task is found by the recorded path, the LLM proposer is rebuilt with its script, and
// the output goes to the run's own folder. (A fake worker that answers like a healthy GPU worker
// stands in for the GPU: what is checked here is the loop that is rebuilt.)
TEST(RunsResume, RebuildsTheLoopTheRunStartedWithFromAnotherFolder) {
    kp::test_support::TempDirectory dir;
    const fs::path started = dir.path() / "started", elsewhere = dir.path() / "elsewhere";
    fs::create_directories(started);
    fs::create_directories(elsewhere);
    fs::copy(kTask, started / "gelu_f16", fs::copy_options::recursive);
    fs::copy_file(kScript, started / "replies.jsonl");

    const std::map<std::string, std::string> worker{{"KERNELPRO_WORKER", kHealthyWorker}};
    auto first = run({"optimize", "gelu_f16", "--llm", "script:replies.jsonl", "--budget-evals", "1", "--out", "out",
                      "--seed", "3", "-q"},
                     started, worker);
    ASSERT_TRUE(first.exit_code == 0 || first.exit_code == 1) << first.stderr_text;
    const fs::path store = started / ".kernelpro" / "runs.db";
    ASSERT_TRUE(fs::exists(store));

    auto resumed = run({"runs", "--store", store.string(), "resume", "1", "--budget-evals", "2", "-q"}, elsewhere, worker);
    EXPECT_TRUE(resumed.exit_code == 0 || resumed.exit_code == 1) << resumed.stderr_text;
    EXPECT_NE(resumed.stderr_text.find("resuming run 1 (gelu_f16): proposers tuner,llm (script:" +
                                       (started / "replies.jsonl").string() + "), out " + (started / "out").string()),
              std::string::npos)
        << resumed.stderr_text;
    EXPECT_NE(resumed.stderr_text.find("after 2 evaluations"), std::string::npos) << resumed.stderr_text;
    EXPECT_FALSE(fs::exists(elsewhere / "kernelpro-out"));
    auto summary = kp::read_text_file(started / "out" / "summary.md");
    ASSERT_TRUE(summary) << summary.error().message;
    EXPECT_NE(summary->find("| evaluations | 2 |"), std::string::npos) << *summary;

    auto shown = run({"runs", "--store", store.string(), "show", "1"}, elsewhere);
    EXPECT_EQ(shown.exit_code, 0) << shown.stderr_text;
    EXPECT_NE(shown.stdout_text.find("recipe: task " + (started / "gelu_f16").string() + " (given as gelu_f16)"),
              std::string::npos)
        << shown.stdout_text;
    EXPECT_NE(shown.stdout_text.find("proposers tuner,llm"), std::string::npos);
    EXPECT_NE(shown.stdout_text.find("seed 3, stops at --budget-evals 2"), std::string::npos) << shown.stdout_text;

    // The same run as JSON (kernelpro.run/1): every node with its parameters and stored evaluation.
    auto as_json = run({"runs", "--store", store.string(), "show", "1", "--json"}, elsewhere);
    ASSERT_EQ(as_json.exit_code, 0) << as_json.stderr_text;
    auto parsed = nlohmann::json::parse(as_json.stdout_text, nullptr, false);
    ASSERT_FALSE(parsed.is_discarded()) << as_json.stdout_text;
    EXPECT_EQ(parsed["schema"], "kernelpro.run/1");
    EXPECT_EQ(parsed["task"], "gelu_f16");
    ASSERT_TRUE(parsed["nodes"].is_array());
    EXPECT_EQ(parsed["nodes"].size(), 2u);
    EXPECT_EQ(parsed["nodes"][0]["origin"], "baseline");
    EXPECT_TRUE(parsed["nodes"][0]["params"].is_object());
    EXPECT_TRUE(parsed["nodes"][0]["outcome"].is_object());
    EXPECT_EQ(parsed["nodes"][0]["outcome"]["status"], parsed["nodes"][0]["status"]);
    EXPECT_EQ(parsed["recipe"]["task"]["given"], "gelu_f16");

    // The task moved: one clear error naming where the run looked, and --task finds it again.
    fs::rename(started / "gelu_f16", started / "moved");
    auto lost = run({"runs", "--store", store.string(), "resume", "1", "-q"}, elsewhere, worker);
    EXPECT_EQ(lost.exit_code, 2);
    EXPECT_NE(lost.stderr_text.find("error: run 1's task " + (started / "gelu_f16").string() + " (given as gelu_f16)"),
              std::string::npos)
        << lost.stderr_text;
}

// A run that used a provider resumes with that provider or not at all: its key is gone, so it
// stops with one line (exit 3) instead of carrying on with the tuner alone.
TEST(RunsResume, AProviderRunWithoutItsKeyIsOneEnvironmentError) {
    kp::test_support::TempDirectory dir;
    auto first = run({"optimize", kTask, "--llm", "openai:gpt-4.1", "--budget-evals", "1", "--out", "out", "-q"},
                     dir.path(), {{"OPENAI_API_KEY", "sk-test-not-a-key"}, {"KERNELPRO_WORKER", kHealthyWorker}});
    ASSERT_TRUE(first.exit_code == 0 || first.exit_code == 1) << first.stderr_text;
    auto store = kp::read_text_file(dir.path() / ".kernelpro" / "runs.db");
    ASSERT_TRUE(store);
    EXPECT_EQ(store->find("sk-test-not-a-key"), std::string::npos);  // the key is never stored

    auto resumed = run({"runs", "resume", "1", "--budget-evals", "2", "-q"}, dir.path(), {{"KERNELPRO_WORKER", kHealthyWorker}});
    expect_one_error(resumed, 3,
                     "error: proposer llm: no API key for openai:gpt-4.1: set OPENAI_API_KEY or KERNELPRO_LLM_API_KEY (or "
                     "KERNELPRO_LLM_BASE_URL for a local server)\n(run 1 needs it to resume as it started)");
}

// The objective is part of what a run is: an energy run resumed from another folder is still an
// energy run with its slowdown, and still measures energy (the recipe's evaluation settings).
TEST(RunsResume, AnEnergyRunResumesAsAnEnergyRun) {
    kp::test_support::TempDirectory dir;
    const std::map<std::string, std::string> worker{{"KERNELPRO_WORKER", kHealthyWorker}};
    auto first = run({"optimize", kTask, "--objective", "energy", "--max-slowdown", "5%", "--budget-evals", "1", "--out",
                      "out", "-q"},
                     dir.path(), worker);
    ASSERT_TRUE(first.exit_code == 0 || first.exit_code == 1) << first.stderr_text;
    auto resumed = run({"runs", "resume", "1", "--budget-evals", "2", "-q"}, dir.path(), worker);
    EXPECT_TRUE(resumed.exit_code == 0 || resumed.exit_code == 1) << resumed.stderr_text;
    EXPECT_NE(resumed.stderr_text.find("energy measured"), std::string::npos) << resumed.stderr_text;
    auto shown = run({"runs", "show", "1"}, dir.path());
    EXPECT_EQ(shown.exit_code, 0) << shown.stderr_text;
    EXPECT_NE(shown.stdout_text.find("objective energy (lowest joules per call at matched speed, within 5.0% of the fastest)"),
              std::string::npos)
        << shown.stdout_text;
    EXPECT_NE(shown.stdout_text.find("energy 3 windows"), std::string::npos) << shown.stdout_text;
    auto summary = kp::read_text_file(dir.path() / "out" / "summary.md");
    ASSERT_TRUE(summary) << summary.error().message;
    EXPECT_NE(summary->find("| objective | energy (lowest joules per call at matched speed, within 5.0% of the fastest) |"),
              std::string::npos)
        << *summary;
}
