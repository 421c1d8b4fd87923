// A search whose LLM proposer may call the code-search tools, built the way `optimize` builds it
// for a task that allows CUTLASS: the script's coder searches the tree before writing, every call
// and its result is stored with its exchange, and a second run replaying the first one's
// recording (--llm-replay) runs the same calls, gets the same results and stores the same rows.
#include <cstdlib>

#include "../codesearch/fixture_tree.h"
#include "scripted_run.h"

using namespace kp::agents::testing;

namespace {

constexpr std::int64_t kEvaluations = 4;

SearchConfig run_config() { return test_config(kEvaluations, 3); }

// Each coder turn first searches, then writes a kernel; analyst plans as usual.
void write_searching_script(const std::filesystem::path& path, int pairs) {
    std::ofstream out(path);
    for (int i = 1; i <= pairs; ++i) {
        out << nlohmann::json{{"role", "analyst"}, {"reply", fmt::format("```json\n{{\"plan\": \"use TMA, version {}\"}}\n```\n", i)}}.dump()
            << "\n";
        nlohmann::json calls = nlohmann::json::array(
            {{{"name", "search_code"}, {"arguments", {{"pattern", "make_tma_copy"}, {"path", "include/cute"}}}},
             {{"name", "read_file"}, {"arguments", {{"path", "../secret.txt"}}}}});
        out << nlohmann::json{{"role", "coder"}, {"tool_calls", calls}}.dump() << "\n";
        out << nlohmann::json{{"role", "coder"}, {"reply", fenced(kernel_version(i))}}.dump() << "\n";
        out << nlohmann::json{{"role", "fixer"}, {"reply", fenced(kernel_version(100 + i))}}.dump() << "\n";
    }
}

// The exchanges one run stored: agent, prompt and tool calls with their results.
std::vector<std::string> stored_exchanges(const std::filesystem::path& db) {
    auto store = open_store(db);
    auto exchanges = store.load_llm_exchanges(1);
    EXPECT_TRUE(exchanges);
    std::vector<std::string> rows;
    for (const auto& e : *exchanges) rows.push_back(e.agent + "\n" + e.prompt + "\n" + e.tool_calls);
    return rows;
}

kp::Result<SearchOutcome> run_with_tools(const std::filesystem::path& db, const RunRecipe& given, const std::string& tree) {
    auto store = open_store(db);
    FunctionEvaluator evaluator(versioned);
    RunRecipe recipe = given;
    auto context = context_for(recipe);
    context.task_libraries = {"cutlass"};
    context.code_search_tree = tree;
    auto proposer = make_proposers(recipe.proposers, context);
    if (!proposer) return proposer.error();
    recipe.llm = context.llm;
    auto config = run_config();
    adjust_config_for(recipe.proposers, config);
    SearchDriver driver(store, evaluator, **proposer);
    return driver.start(kTask, kVersionZero, config, recipe);
}

}  // namespace

TEST(CodeSearchRun, ToolCallsAreStoredWithTheirExchangesAndAReplayedRunReproducesThem) {
    kp::codesearch::testing::FixtureTree tree;
    ::setenv("KERNELPRO_CACHE_DIR", tree.cache.c_str(), 1);
    const auto script = tree.scratch.path() / "script.jsonl";
    const auto recording = tree.scratch.path() / "recording.jsonl";
    write_searching_script(script, 8);

    RunRecipe recorded = recipe_for({"llm"}, script);
    recorded.llm.record = recording.string();
    auto first = run_with_tools(tree.scratch.path() / "first.db", recorded, tree.root.string());
    ASSERT_TRUE(first) << first.error().message;
    const auto live = stored_exchanges(tree.scratch.path() / "first.db");

    // Each coder proposal is two exchanges: the turn that called the tools, then the kernel.
    int tool_turns = 0;
    auto store = open_store(tree.scratch.path() / "first.db");
    auto exchanges = store.load_llm_exchanges(1);
    ASSERT_TRUE(exchanges);
    for (const auto& e : *exchanges) {
        if (e.tool_calls.empty()) continue;
        ++tool_turns;
        EXPECT_EQ(e.agent, "coder");
        const auto calls = nlohmann::json::parse(e.tool_calls);
        ASSERT_EQ(calls.size(), 2u);
        EXPECT_EQ(calls[0]["name"], "search_code");
        EXPECT_NE(calls[0]["result"].get<std::string>().find("copy_traits_sm90_tma.hpp:5: auto make_tma_copy"),
                  std::string::npos);
        EXPECT_EQ(calls[1]["is_error"], true);  // the path out of the tree is refused, not read
        EXPECT_NE(calls[1]["result"].get<std::string>().find("outside the tree"), std::string::npos);
        EXPECT_EQ(calls[1]["result"].get<std::string>().find("TOP_SECRET"), std::string::npos);
    }
    EXPECT_GE(tool_turns, 2);
    // The task allows CUTLASS: the coder's prompt is the CuTe one, and it saw the results it asked for.
    bool saw_result = false, cute_prompt = false;
    for (const auto& row : live) {
        saw_result = saw_result || row.find("[tool result call_coder_") != std::string::npos;
        cute_prompt = cute_prompt || (row.rfind("coder\n", 0) == 0 && row.find("expert CUDA and CuTe programmer") != std::string::npos);
    }
    EXPECT_TRUE(saw_result);
    EXPECT_TRUE(cute_prompt);

    RunRecipe replayed = recipe_for({"llm"}, script);
    replayed.llm.replay = recording.string();
    auto second = run_with_tools(tree.scratch.path() / "second.db", replayed, tree.root.string());
    ASSERT_TRUE(second) << second.error().message;
    EXPECT_EQ(stored_exchanges(tree.scratch.path() / "second.db"), live);
    ::unsetenv("KERNELPRO_CACHE_DIR");
}
