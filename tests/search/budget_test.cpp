// Every budget, the roofline early stop, exhaustion, stop requests and evaluator failures end a run
// with the right reason and leave the store consistent.
#include "driver_fixture.h"

using namespace kp::search;
using namespace kp::search::synthetic;

namespace {

struct Harness {
    kp::test_support::TempDirectory dir;
    kp::store::RunStore store = open_store(dir.path() / "runs.db");
    FunctionEvaluator evaluator{steadily_better};
    FunctionProposer proposer{uniform_children(4), 2};
    SearchDriver driver{store, evaluator, proposer};
};

}  // namespace

TEST(Budgets, EvaluationBudgetIsExact) {
    Harness h;
    auto outcome = h.driver.start(kTask, kBaseline, test_config(10));
    ASSERT_TRUE(outcome) << outcome.error().message;
    EXPECT_EQ(outcome->stop_reason.name(), "evaluation_budget");
    EXPECT_EQ(outcome->spend.evaluations, 10);
    EXPECT_EQ(h.evaluator.calls, 10);
    EXPECT_EQ(h.store.load_evaluations(outcome->run_id)->size(), 10u);
    auto run = h.store.load_run(outcome->run_id);
    EXPECT_EQ(run->status, kp::store::RunStatus::finished);
    EXPECT_EQ(run->stop_reason, "evaluation_budget");
}

TEST(Budgets, WallTimeBudgetStops) {
    Harness h;
    h.evaluator.delay = std::chrono::milliseconds(20);
    auto config = test_config(1000);
    config.stop_limits["wall_time_budget"] = 0.2;
    auto outcome = h.driver.start(kTask, kBaseline, config);
    ASSERT_TRUE(outcome);
    EXPECT_EQ(outcome->stop_reason.name(), "wall_time_budget");
    EXPECT_GE(outcome->spend.elapsed_seconds, 0.2);
    EXPECT_LT(outcome->spend.evaluations, 20);
    EXPECT_GE(h.store.load_run(outcome->run_id)->elapsed_seconds, 0.15);  // persisted for resume
}

TEST(Budgets, TokenBudgetStopsAndMatchesTheStore) {
    Harness h;
    h.proposer.tokens_per_call = 100;
    auto config = test_config(1000);
    config.stop_limits["token_budget"] = 350;
    auto outcome = h.driver.start(kTask, kBaseline, config);
    ASSERT_TRUE(outcome);
    EXPECT_EQ(outcome->stop_reason.name(), "token_budget");
    EXPECT_EQ(outcome->spend.llm_tokens, 400);  // checked before each call: one call may overshoot
    auto totals = h.store.llm_totals(outcome->run_id);
    EXPECT_EQ(totals->tokens(), 400);
    EXPECT_EQ(totals->exchanges, 4);
}

TEST(Budgets, CostBudgetStops) {
    Harness h;
    h.proposer.cost_per_call = 0.25;
    auto config = test_config(1000);
    config.stop_limits["cost_budget"] = 1.0;
    auto outcome = h.driver.start(kTask, kBaseline, config);
    ASSERT_TRUE(outcome);
    EXPECT_EQ(outcome->stop_reason.name(), "cost_budget");
    EXPECT_NEAR(outcome->spend.cost_usd, 1.0, 1e-9);
}

TEST(Budgets, StopsEarlyAtTheRooflineTarget) {
    Harness h;
    auto config = test_config(1000);
    config.stop_limits["roofline_target"] = 0.6;  // reached at 3x (fraction = 0.2 * speedup)
    auto outcome = h.driver.start(kTask, kBaseline, config);
    ASSERT_TRUE(outcome);
    EXPECT_EQ(outcome->stop_reason.name(), "roofline_target");
    ASSERT_TRUE(outcome->best_roofline_fraction);
    EXPECT_GE(*outcome->best_roofline_fraction, 0.6);
    EXPECT_LT(outcome->spend.evaluations, 1000);  // long before the evaluation budget
}

TEST(Budgets, ExhaustedSearchStops) {
    Harness h;
    FunctionProposer nothing([](const NodeView&) { return std::vector<Proposal>{}; }, 1);
    SearchDriver driver(h.store, h.evaluator, nothing);
    auto outcome = driver.start(kTask, kBaseline, test_config(100));
    ASSERT_TRUE(outcome);
    EXPECT_EQ(outcome->stop_reason.name(), "search_exhausted");
    EXPECT_EQ(outcome->spend.evaluations, 1);
    EXPECT_EQ(nothing.requests.size(), 1u);  // an empty answer is final for that node
}

TEST(Budgets, ResumeCanExtendABudget) {
    Harness h;
    auto first = h.driver.start(kTask, kBaseline, test_config(8));
    ASSERT_TRUE(first);
    ResumeOptions options;
    options.stop_limits = {{"evaluation_budget", 20}};
    SearchDriver again(h.store, h.evaluator, h.proposer);
    auto second = again.resume(first->run_id, options);
    ASSERT_TRUE(second) << second.error().message;
    EXPECT_EQ(second->spend.evaluations, 20);
    EXPECT_EQ(h.evaluator.calls, 20);
}

namespace {
class FlakyEvaluator : public Evaluator {
public:
    kp::Result<EvaluationOutcome> evaluate(const EvaluationRequest& request) override {
        if (fail_next) {
            fail_next = false;
            return kp::make_error("GPU lost");
        }
        return steadily_better(request.candidate);
    }
    bool fail_next = false;
};
}  // namespace

TEST(Budgets, EvaluatorFailureStopsResumably) {
    kp::test_support::TempDirectory dir;
    auto store = open_store(dir.path() / "runs.db");
    FlakyEvaluator evaluator;
    FunctionProposer proposer(uniform_children(4), 2);
    SearchDriver driver(store, evaluator, proposer);
    driver.set_progress_callback([&](const SearchProgress& progress) {
        if (progress.spend.evaluations == 5) evaluator.fail_next = true;
    });
    auto outcome = driver.start(kTask, kBaseline, test_config(12));
    ASSERT_TRUE(outcome);
    EXPECT_EQ(outcome->stop_reason.name(), "evaluator_error");
    EXPECT_EQ(outcome->stop_detail, "GPU lost");
    auto summary = store.summarize_run(outcome->run_id);
    EXPECT_EQ(summary->pending_nodes, 1);
    EXPECT_EQ(summary->evaluations, 5);
    EXPECT_EQ(summary->run.status, kp::store::RunStatus::failed);

    SearchDriver again(store, evaluator, proposer);
    auto resumed = again.resume(outcome->run_id);
    ASSERT_TRUE(resumed);
    EXPECT_EQ(resumed->stop_reason.name(), "evaluation_budget");
    EXPECT_EQ(store.summarize_run(outcome->run_id)->pending_nodes, 0);
    EXPECT_EQ(store.summarize_run(outcome->run_id)->evaluations, 12);
}
