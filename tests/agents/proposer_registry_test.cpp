// What every registered proposer must do, whatever it proposes: parametrized over the registry
// (kernel_tuner's habit), so a new proposer is held to it without a line of test code. Each is
// made from a run recipe, as `optimize` and `runs resume` make it (the llm proposer answers from
// a hand-written script), and searches a synthetic landscape with the real driver and store.
#include "scripted_run.h"

using namespace kp::agents::testing;

namespace {

struct Fixture {
    kp::test_support::TempDirectory dir;
    std::filesystem::path script = dir.path() / "replies.jsonl";
    Fixture() { write_script(script, 12); }
};

SearchConfig config_for(std::uint64_t seed = 4) { return test_config(10, seed); }

// Every proposal the run stored, in order: the parent, the kind, what became of it, the experiment.
std::vector<std::string> proposals_of(kp::store::RunStore& store) {
    auto runs = store.list_runs();
    EXPECT_TRUE(runs && runs->size() == 1u);
    auto proposals = store.load_proposals(runs->front().run.id);
    EXPECT_TRUE(proposals);
    std::vector<std::string> lines;
    for (const auto& p : *proposals)
        lines.push_back(fmt::format("{} {} {} {}", p.parent_node_id, p.kind, static_cast<int>(p.state), p.evaluation_key));
    return lines;
}

std::vector<std::string> tree_of(kp::store::RunStore& store, RunRecipe recipe, std::uint64_t seed = 4) {
    FunctionEvaluator evaluator(versioned);
    SearchTree tree;
    auto outcome = start_run(store, evaluator, std::move(recipe), config_for(seed), {}, &tree);
    EXPECT_TRUE(outcome) << outcome.error().message;
    return describe_tree(tree);
}

}  // namespace

class EveryProposer : public ::testing::TestWithParam<std::string> {};

// It proposes, and what it proposes is what it says: a parameter move changes only the
// parameters, a rewrite brings new source; nothing is proposed twice.
TEST_P(EveryProposer, ProposesCompleteCandidatesOfTheKindItNames) {
    Fixture f;
    auto store = open_store(f.dir.path() / "runs.db");
    FunctionEvaluator evaluator(versioned);
    SearchTree tree;
    auto outcome = start_run(store, evaluator, recipe_for({GetParam()}, f.script), config_for(), {}, &tree);
    ASSERT_TRUE(outcome) << outcome.error().message;
    EXPECT_GT(outcome->nodes, 1) << GetParam() << " proposed nothing";
    std::set<std::string> keys;
    for (const auto& node : tree.nodes()) {
        EXPECT_TRUE(keys.insert(node.evaluation_key).second) << "node " << node.id << " repeats an experiment";
        if (!node.parent) continue;
        const auto& parent = tree.node(*node.parent);
        EXPECT_FALSE(node.candidate.source.empty());
        if (node.origin == NodeOrigin::parameter_move) {
            EXPECT_EQ(node.candidate.source, parent.candidate.source) << "node " << node.id;
            EXPECT_NE(node.candidate.params, parent.candidate.params) << "node " << node.id;
        } else {
            EXPECT_NE(node.candidate.source, parent.candidate.source) << "node " << node.id;
        }
    }
}

TEST_P(EveryProposer, SameSeedSameTree) {
    Fixture f;
    auto a = open_store(f.dir.path() / "a.db");
    auto b = open_store(f.dir.path() / "b.db");
    EXPECT_EQ(tree_of(a, recipe_for({GetParam()}, f.script)), tree_of(b, recipe_for({GetParam()}, f.script)));
}

// Stopped twice and resumed each time with a proposer made anew from the stored recipe, the run
// ends with the tree, and the very proposals, of a run never stopped: nothing the proposer knew is
// lost with the process (a proposer that forgot would propose again what it had proposed).
TEST_P(EveryProposer, ResumedFromItsRecipeItProposesWhatAnUninterruptedRunWould) {
    Fixture f;
    auto reference_store = open_store(f.dir.path() / "reference.db");
    const auto reference = tree_of(reference_store, recipe_for({GetParam()}, f.script));

    auto store = open_store(f.dir.path() / "runs.db");
    FunctionEvaluator evaluator(versioned);
    auto stop_after = [](std::int64_t evaluations) {
        return [evaluations](SearchDriver& driver) {
            driver.set_progress_callback([&driver, evaluations](const SearchProgress& progress) {
                if (progress.spend.evaluations >= evaluations) driver.request_stop();
            });
        };
    };
    auto first = start_run(store, evaluator, recipe_for({GetParam()}, f.script), config_for(), stop_after(3));
    ASSERT_TRUE(first) << first.error().message;
    ASSERT_EQ(first->stop_reason.name(), "stop_requested");
    auto second = resume_run(store, evaluator, first->run_id, stop_after(6));
    ASSERT_TRUE(second) << second.error().message;
    SearchTree tree;
    auto last = resume_run(store, evaluator, first->run_id, {}, &tree);
    ASSERT_TRUE(last) << last.error().message;
    EXPECT_EQ(last->stop_reason.name(), "evaluation_budget");
    EXPECT_EQ(describe_tree(tree), reference);
    EXPECT_EQ(proposals_of(store), proposals_of(reference_store));
}

TEST_P(EveryProposer, ItsRunStoresTheRecipeItWasMadeFrom) {
    Fixture f;
    auto store = open_store(f.dir.path() / "runs.db");
    FunctionEvaluator evaluator(versioned);
    auto outcome = start_run(store, evaluator, recipe_for({GetParam()}, f.script), config_for());
    ASSERT_TRUE(outcome) << outcome.error().message;
    auto recipe = recipe_of(*store.load_run(outcome->run_id));
    ASSERT_TRUE(recipe && *recipe);
    EXPECT_EQ((*recipe)->proposers, std::vector<std::string>{GetParam()});
    EXPECT_EQ((*recipe)->llm.spec, "script:" + f.script.string());
}

INSTANTIATE_TEST_SUITE_P(Registered, EveryProposer, ::testing::ValuesIn(proposers().names()),
                         [](const auto& info) { return info.param; });

TEST(Proposers, TheBuiltInsAreRegisteredAndUnknownOrRepeatedNamesAreOneError) {
    EXPECT_EQ(proposers().names(), (std::vector<std::string>{"exhaustive", "llm", "random", "tuner"}));
    auto unknown = check_proposer_names({"tuner", "annealer"});
    ASSERT_FALSE(unknown);
    EXPECT_EQ(unknown.error().message, "unknown proposer 'annealer' (registered: exhaustive, llm, random, tuner)");
    auto twice = check_proposer_names({"tuner", "tuner"});
    ASSERT_FALSE(twice);
    EXPECT_EQ(twice.error().message, "proposer 'tuner' is listed twice");
    EXPECT_FALSE(check_proposer_names({}));
}

// Several proposers are asked in turn about the same node: the tuner's moves and the LLM's
// rewrites both reach the tree.
TEST(Proposers, CombinedProposersBothContribute) {
    Fixture f;
    auto store = open_store(f.dir.path() / "runs.db");
    FunctionEvaluator evaluator(versioned);
    SearchTree tree;
    auto outcome = start_run(store, evaluator, recipe_for({"tuner", "llm"}, f.script), test_config(14), {}, &tree);
    ASSERT_TRUE(outcome) << outcome.error().message;
    int moves = 0, rewrites = 0;
    for (const auto& node : tree.nodes()) {
        moves += node.origin == NodeOrigin::parameter_move;
        rewrites += node.origin == NodeOrigin::rewrite;
    }
    EXPECT_GT(moves, 0);
    EXPECT_GT(rewrites, 0);
}
