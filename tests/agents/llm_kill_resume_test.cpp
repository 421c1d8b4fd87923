// A killed `--llm script:` run resumes with its script, for real: child processes run a search
// whose only proposer is the LLM proposer answering from a hand-written script, built from the run
// recipe as `kernelpro optimize` builds it; they are SIGKILLed in the middle of an evaluation,
// right after a commit and right after a resume, and each new process resumes the run from what
// the store holds (its recipe, the replies already used), as `kernelpro runs resume` does. The LLM
// proposer goes on proposing after every resume, no reply of the script is used twice, and the
// tree is the one of a run never killed.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <map>

#include "scripted_run.h"

using namespace kp::agents::testing;

namespace {

constexpr std::int64_t kEvaluations = 14;

enum class SelfKill { none, during_evaluation_of_node, after_commit_of_node };

SearchConfig run_config() { return test_config(kEvaluations, 9); }

// One process's session: start the run from the recipe if the store has none, else resume it
// from the store. Kills itself at the chosen point.
int run_session(const std::filesystem::path& db, const std::filesystem::path& script, SelfKill self_kill,
                std::int64_t kill_node) {
    auto opened = kp::store::RunStore::open(db, kp::store::Durability::process_crash_safe);
    if (!opened) return 3;
    FunctionEvaluator evaluator(versioned);
    evaluator.on_start = [&](const EvaluationRequest& request) {
        if (self_kill == SelfKill::during_evaluation_of_node && request.node_id == kill_node) ::raise(SIGKILL);
    };
    auto prepare = [&](SearchDriver& driver) {
        driver.set_progress_callback([&](const SearchProgress& progress) {
            if (self_kill == SelfKill::after_commit_of_node && progress.node_id == kill_node) ::raise(SIGKILL);
        });
    };
    auto runs = opened->list_runs();
    if (!runs) return 3;
    auto outcome = runs->empty() ? start_run(*opened, evaluator, recipe_for({"llm"}, script), run_config(), prepare)
                                 : resume_run(*opened, evaluator, runs->front().run.id, prepare);
    if (!outcome) std::fprintf(stderr, "session: %s\n", outcome.error().message.c_str());
    return outcome ? 0 : 4;
}

// True when the child died of SIGKILL; a child that ends must end well.
bool run_child(const std::filesystem::path& db, const std::filesystem::path& script, SelfKill self_kill,
               std::int64_t kill_node) {
    std::fflush(nullptr);
    pid_t pid = ::fork();
    if (pid == 0) ::_exit(run_session(db, script, self_kill, kill_node));
    if (pid < 0) throw std::runtime_error("fork failed");
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (WIFEXITED(status)) {
        EXPECT_EQ(WEXITSTATUS(status), 0);
    }
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

std::int64_t nodes_in(const std::filesystem::path& db) {
    auto store = open_store(db);
    auto runs = store.list_runs();
    return runs && !runs->empty() ? runs->front().nodes : 0;
}

// Rewrites the store holds after node `after` (the LLM proposer's work since then).
int rewrites_after(kp::store::RunStore& store, std::int64_t run_id, std::int64_t after) {
    auto nodes = store.load_nodes(run_id);
    EXPECT_TRUE(nodes);
    int count = 0;
    for (const auto& node : *nodes) count += node.node_id > after && node.proposal_kind == "rewrite";
    return count;
}

}  // namespace

TEST(LlmKillResume, AKilledScriptRunResumesWithItsScriptAndKeepsProposing) {
    kp::test_support::TempDirectory dir;
    const auto script = dir.path() / "replies.jsonl";
    write_script(script, 30);

    std::vector<std::string> expected;
    {
        auto store = open_store(dir.path() / "reference.db");
        FunctionEvaluator evaluator(versioned);
        SearchTree tree;
        auto outcome = start_run(store, evaluator, recipe_for({"llm"}, script), run_config(), {}, &tree);
        ASSERT_TRUE(outcome) << outcome.error().message;
        expected = describe_tree(tree);
        ASSERT_EQ(expected.size(), static_cast<size_t>(kEvaluations));
    }

    const auto db = dir.path() / "runs.db";
    EXPECT_TRUE(run_child(db, script, SelfKill::during_evaluation_of_node, 3));
    const std::int64_t after_first_kill = nodes_in(db);
    EXPECT_TRUE(run_child(db, script, SelfKill::after_commit_of_node, 7));
    const std::int64_t after_second_kill = nodes_in(db);
    EXPECT_TRUE(run_child(db, script, SelfKill::during_evaluation_of_node, 8));  // right after the resume
    EXPECT_FALSE(run_child(db, script, SelfKill::none, 0));                      // to the end
    ASSERT_GT(after_second_kill, after_first_kill);

    auto store = open_store(db);
    auto runs = store.list_runs();
    ASSERT_TRUE(runs);
    ASSERT_EQ(runs->size(), 1u);
    const auto& run = runs->front();
    EXPECT_EQ(run.run.status, kp::store::RunStatus::finished);
    EXPECT_EQ(run.evaluations, kEvaluations);
    EXPECT_EQ(run.pending_nodes, 0);

    // The LLM proposer kept proposing in the sessions after each kill.
    EXPECT_GT(rewrites_after(store, run.run.id, after_first_kill), 0);
    EXPECT_GT(rewrites_after(store, run.run.id, after_second_kill), 0);

    // No reply of the script was used twice: each committed coder exchange is another version.
    auto exchanges = store.load_llm_exchanges(run.run.id);
    ASSERT_TRUE(exchanges);
    std::map<std::string, int> coder_replies;
    for (const auto& exchange : *exchanges)
        if (exchange.agent == "coder") ++coder_replies[exchange.reply];
    EXPECT_EQ(coder_replies.size(), static_cast<size_t>(kEvaluations - 1));
    for (const auto& [reply, uses] : coder_replies) EXPECT_EQ(uses, 1) << reply;

    // The recipe says how the run was set up, and the store rebuilds the uninterrupted tree.
    auto recipe = recipe_of(run.run);
    ASSERT_TRUE(recipe && *recipe);
    EXPECT_EQ((*recipe)->proposers, std::vector<std::string>{"llm"});
    EXPECT_EQ((*recipe)->llm.settings.value("spec", ""), "script:" + script.string());
    FunctionEvaluator evaluator(versioned);
    SearchTree tree;
    auto outcome = resume_run(store, evaluator, run.run.id, {}, &tree);
    ASSERT_TRUE(outcome) << outcome.error().message;
    EXPECT_EQ(evaluator.calls, 0);  // nothing left to do
    EXPECT_EQ(describe_tree(tree), expected);
}

// A provider run resumed without its key: one clear error before anything is made, never a
// quiet switch to another proposer.
TEST(LlmKillResume, AProviderRunWithoutItsKeyDoesNotResume) {
    kp::test_support::TempDirectory dir;
    auto store = open_store(dir.path() / "runs.db");
    FunctionEvaluator evaluator(versioned);
    RunRecipe recipe = recipe_for({"tuner", "llm"}, dir.path() / "unused.jsonl");
    recipe.llm.spec = "anthropic:claude-sonnet-4";
    auto context = context_for(recipe);
    context.environment = {{"ANTHROPIC_API_KEY", "sk-ant-test"}};
    ASSERT_TRUE(check_proposers_environment(recipe.proposers, context));
    auto proposer = make_proposers(recipe.proposers, context);
    ASSERT_TRUE(proposer) << proposer.error().message;
    recipe.llm = context.llm;
    SearchDriver driver(store, evaluator, **proposer);
    auto config = test_config(1);
    ASSERT_TRUE(driver.start(kTask, kVersionZero, config, recipe));

    auto stored = recipe_of(*store.load_run(1));
    ASSERT_TRUE(stored && *stored);
    EXPECT_EQ((*stored)->llm.settings.value("spec", ""), "anthropic:claude-sonnet-4");
    EXPECT_EQ((*stored)->llm.settings.dump().find("sk-ant-test"), std::string::npos);  // never the key
    auto resumed = context_for(**stored);  // the environment now has no key
    auto ready = check_proposers_environment((*stored)->proposers, resumed);
    ASSERT_FALSE(ready);
    EXPECT_EQ(ready.error().message,
              "proposer llm: no API key for anthropic:claude-sonnet-4: set ANTHROPIC_API_KEY or KERNELPRO_LLM_API_KEY "
              "(or KERNELPRO_LLM_BASE_URL for a local server)");
}
