#include <gtest/gtest.h>

#include "store/run_store.h"
#include "temp_store.h"

using namespace kp::store;

namespace {

NodeRecord baseline_node() {
    NodeRecord node;
    node.proposal_kind = "baseline";
    node.source = "__global__ void k() {}";
    node.params_json = R"({"BLOCK":"128"})";
    node.evaluation_key = "key-0";
    return node;
}

CompletedEvaluation ok_evaluation(std::int64_t run_id, std::int64_t node_id, const std::string& key, double speedup) {
    CompletedEvaluation completed;
    completed.evaluation = {run_id, node_id, key, "ok", 1e-3 / speedup, speedup, 0.5, 0.4, R"({"x":1})", ""};
    completed.findings.push_back({run_id, node_id, "uncoalesced_access", 0.3, "loads are uncoalesced", "{}"});
    completed.profiles.push_back({run_id, node_id, "ncu", R"({"dram":0.8})"});
    completed.run_elapsed_seconds = 12.5;
    return completed;
}

}  // namespace

TEST(RunStore, DefaultPathIsPerProject) {
    EXPECT_EQ(RunStore::default_path("/p"), std::filesystem::path("/p/.kernelpro/runs.db"));
}

TEST(RunStore, CreatesRunWithPendingBaseline) {
    kp::test_support::TempDirectory dir;
    auto store = RunStore::open(RunStore::default_path(dir.path()));
    ASSERT_TRUE(store) << store.error().message;
    auto run_id = store->create_run({"softmax", "fp", "{}", ""}, baseline_node());
    ASSERT_TRUE(run_id) << run_id.error().message;
    auto nodes = store->load_nodes(*run_id);
    ASSERT_TRUE(nodes);
    ASSERT_EQ(nodes->size(), 1u);
    EXPECT_EQ((*nodes)[0].node_id, 0);
    EXPECT_EQ((*nodes)[0].state, NodeState::pending);
    EXPECT_FALSE((*nodes)[0].parent_id.has_value());
    EXPECT_EQ((*nodes)[0].params_json, R"({"BLOCK":"128"})");
    auto summary = store->summarize_run(*run_id);
    ASSERT_TRUE(summary);
    EXPECT_EQ(summary->pending_nodes, 1);
    EXPECT_EQ(summary->run.status, RunStatus::running);
}

TEST(RunStore, KeepsTheRunsRecipeFromItsCreation) {
    kp::test_support::TempDirectory dir;
    auto store = RunStore::open(dir.path() / "runs.db");
    ASSERT_TRUE(store);
    auto run_id = store->create_run({"softmax", "fp", "{}", R"({"proposers":["tuner","llm"]})"}, baseline_node());
    ASSERT_TRUE(run_id);
    EXPECT_EQ(store->load_run(*run_id)->recipe_json, R"({"proposers":["tuner","llm"]})");
    EXPECT_EQ((*store->list_runs())[0].run.recipe_json, R"({"proposers":["tuner","llm"]})");
}

TEST(RunStore, EvaluationIsWrittenOnceWithItsFindings) {
    kp::test_support::TempDirectory dir;
    auto store = RunStore::open(dir.path() / "runs.db");
    ASSERT_TRUE(store);
    auto run_id = store->create_run({"softmax", "fp", "{}", ""}, baseline_node());
    ASSERT_TRUE(run_id);
    auto completed = ok_evaluation(*run_id, 0, "key-0", 2.0);
    completed.lesson = LessonRecord{};
    completed.lesson->run_id = *run_id;
    completed.lesson->task_name = "softmax";
    completed.lesson->change_kind = "rewrite";
    completed.lesson->change_text = "vectorize loads";
    completed.lesson->speedup_ratio = 2.0;
    ASSERT_TRUE(store->record_evaluation(completed));
    ASSERT_TRUE(store->record_evaluation(completed));  // idempotent: no second row
    auto evaluations = store->load_evaluations(*run_id);
    ASSERT_TRUE(evaluations);
    ASSERT_EQ(evaluations->size(), 1u);
    EXPECT_EQ((*evaluations)[0].status_class, "ok");
    EXPECT_DOUBLE_EQ(*(*evaluations)[0].speedup, 2.0);
    auto nodes = store->load_nodes(*run_id);
    EXPECT_EQ((*nodes)[0].state, NodeState::done);
    EXPECT_EQ(store->load_findings(*run_id, 0)->size(), 1u);
    EXPECT_EQ(store->load_profiles(*run_id, 0)->size(), 1u);
    EXPECT_EQ(store->lessons_of_run(*run_id, 10)->size(), 1u);
    EXPECT_DOUBLE_EQ(store->load_run(*run_id)->elapsed_seconds, 12.5);
    auto cached = store->find_evaluation_by_key("key-0");
    ASSERT_TRUE(cached);
    ASSERT_TRUE(cached->has_value());
    EXPECT_EQ((*cached)->node_id, 0);
}

TEST(RunStore, ProposalsExchangesAndTotals) {
    kp::test_support::TempDirectory dir;
    auto store = RunStore::open(dir.path() / "runs.db");
    ASSERT_TRUE(store);
    auto run_id = store->create_run({"gemm", "fp", "{}", ""}, baseline_node());
    ASSERT_TRUE(run_id);
    std::vector<ProposalRecord> proposals(2);
    proposals[0].kind = "rewrite";
    proposals[0].source = "v2";
    proposals[0].evaluation_key = "key-1";
    proposals[1].kind = "parameter_move";
    proposals[1].source = "v1";
    proposals[1].evaluation_key = "key-2";
    LlmExchangeRecord exchange{*run_id, 0, "coder", "model-x", "prompt", "reply", 100, 50, 1.5, 0.01, ""};
    LlmExchangeRecord tool_turn = exchange;
    tool_turn.tool_calls = R"([{"id":"c1","name":"search_code","arguments":{"pattern":"tma"},"result":"...","is_error":false,"ran":true}])";
    ASSERT_TRUE(store->add_proposals(*run_id, 0, proposals, {tool_turn, exchange}, 1, false));
    EXPECT_GT(proposals[0].id, 0);
    EXPECT_GT(proposals[1].id, proposals[0].id);

    NodeRecord child;
    child.run_id = *run_id;
    child.node_id = 1;
    child.parent_id = 0;
    child.proposal_kind = "rewrite";
    child.source = "v2";
    child.evaluation_key = "key-1";
    ASSERT_TRUE(store->add_pending_node(child, proposals[0].id));
    auto loaded = store->load_proposals(*run_id);
    ASSERT_TRUE(loaded);
    ASSERT_EQ(loaded->size(), 2u);
    EXPECT_EQ((*loaded)[0].state, ProposalState::expanded);
    EXPECT_EQ((*loaded)[0].child_node_id, 1);
    EXPECT_EQ((*loaded)[1].state, ProposalState::queued);
    EXPECT_EQ(store->load_nodes(*run_id)->at(0).proposer_calls, 1);

    auto totals = store->llm_totals(*run_id);
    ASSERT_TRUE(totals);
    EXPECT_EQ(totals->exchanges, 2);
    EXPECT_EQ(totals->tokens(), 300);
    EXPECT_NEAR(totals->cost_usd, 0.02, 1e-12);
    auto exchanges = store->load_llm_exchanges(*run_id);
    ASSERT_TRUE(exchanges);
    ASSERT_EQ(exchanges->size(), 2u);
    EXPECT_EQ((*exchanges)[0].tool_calls, tool_turn.tool_calls);  // kept with its exchange, in order
    EXPECT_EQ((*exchanges)[1].tool_calls, "");
}

TEST(RunStore, DuplicateEvaluationKeyInOneRunIsRefused) {
    kp::test_support::TempDirectory dir;
    auto store = RunStore::open(dir.path() / "runs.db");
    ASSERT_TRUE(store);
    auto run_id = store->create_run({"gemm", "fp", "{}", ""}, baseline_node());
    NodeRecord child = baseline_node();
    child.run_id = *run_id;
    child.node_id = 1;
    child.parent_id = 0;
    EXPECT_FALSE(store->add_pending_node(child));  // same key as the baseline
}

TEST(RunStore, ListsRunsNewestFirstAndUpdatesStatus) {
    kp::test_support::TempDirectory dir;
    auto store = RunStore::open(dir.path() / "runs.db");
    ASSERT_TRUE(store);
    auto first = store->create_run({"a", "", "{}", ""}, baseline_node());
    auto second = store->create_run({"b", "", "{}", ""}, baseline_node());
    ASSERT_TRUE(first && second);
    ASSERT_TRUE(store->set_run_status(*first, RunStatus::finished, "evaluation budget", 3.0));
    auto runs = store->list_runs();
    ASSERT_TRUE(runs);
    ASSERT_EQ(runs->size(), 2u);
    EXPECT_EQ((*runs)[0].run.task_name, "b");
    EXPECT_EQ((*runs)[1].run.status, RunStatus::finished);
    EXPECT_EQ((*runs)[1].run.stop_reason, "evaluation budget");
    EXPECT_FALSE(store->load_run(999));
}

TEST(RunStore, SimilarLessonsMatchTaskOrDiagnosis) {
    kp::test_support::TempDirectory dir;
    auto store = RunStore::open(dir.path() / "runs.db");
    ASSERT_TRUE(store);
    auto lesson = [](std::int64_t run, const char* task, const char* roofline, const char* tools) {
        LessonRecord l;
        l.run_id = run;
        l.task_name = task;
        l.roofline_class = roofline;
        l.tool_names = tools;
        l.change_kind = "rewrite";
        l.change_text = task;
        l.speedup_ratio = 1.1;
        return l;
    };
    auto r1 = store->create_run({"t", "", "{}", ""}, baseline_node());
    auto r2 = store->create_run({"u", "", "{}", ""}, baseline_node());
    ASSERT_TRUE(store->record_lesson(lesson(*r1, "softmax", "memory_bound", "a,b")));
    ASSERT_TRUE(store->record_lesson(lesson(*r1, "layernorm", "memory_bound", "a,b")));
    ASSERT_TRUE(store->record_lesson(lesson(*r1, "gemm", "compute_bound", "c")));
    ASSERT_TRUE(store->record_lesson(lesson(*r2, "softmax", "latency_bound", "")));
    LessonQuery query{"softmax", "memory_bound", "a,b", *r2, 10};
    auto found = store->similar_lessons(query);
    ASSERT_TRUE(found);
    ASSERT_EQ(found->size(), 2u);  // r2's own lesson excluded; gemm differs in both ways
    EXPECT_EQ((*found)[0].change_text, "softmax");  // same task ranks first
    EXPECT_EQ((*found)[1].change_text, "layernorm");
}
