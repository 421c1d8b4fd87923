// optimize --gpus N: rounds of N candidates evaluated at once. The tree depends on the seed and
// the round width only, never on which evaluation finished first; every evaluation of a round is
// in flight together; budgets are not overshot by a round.
#include <atomic>
#include <mutex>

#include "driver_fixture.h"

using namespace kp::search;
using namespace kp::search::synthetic;

namespace {

// Thread-safe, with a delay per candidate (from its path, or reversed) so that the evaluations
// of one round finish in different orders from run to run.
class ConcurrentEvaluator : public Evaluator {
public:
    explicit ConcurrentEvaluator(bool reverse_delays) : reverse_(reverse_delays) {}
    kp::Result<EvaluationOutcome> evaluate(const EvaluationRequest& request) override {
        int now = ++in_flight_;
        for (int seen = peak.load(); now > seen && !peak.compare_exchange_weak(seen, now);) {
        }
        double u = unit_hash("delay:" + request.candidate.source);
        std::this_thread::sleep_for(std::chrono::milliseconds(static_cast<int>(1 + 12 * (reverse_ ? 1 - u : u))));
        --in_flight_;
        std::lock_guard<std::mutex> lock(mutex_);
        ++calls;
        return rugged_outcome(request.candidate.source);
    }
    std::atomic<int> peak{0};
    int calls = 0;

private:
    bool reverse_;
    std::atomic<int> in_flight_{0};
    std::mutex mutex_;
};

struct RoundRun {
    std::vector<std::string> tree;
    int peak = 0;
    int calls = 0;
    std::int64_t evaluations = 0;
};

RoundRun run_rounds(const std::filesystem::path& path, int width, std::uint64_t seed, bool reverse_delays, std::int64_t budget = 13) {
    auto store = open_store(path);
    ConcurrentEvaluator evaluator(reverse_delays);
    FunctionProposer proposer(uniform_children(3), 6);
    SearchDriver driver(store, evaluator, proposer);
    auto config = test_config(budget, seed);
    config.parallel_evaluations = width;
    auto outcome = driver.start(kTask, Candidate{"root", {}}, config);
    EXPECT_TRUE(outcome.ok());
    return {describe_tree(driver.tree()), evaluator.peak.load(), evaluator.calls, outcome.ok() ? outcome->spend.evaluations : 0};
}

}  // namespace

TEST(ParallelRounds, SameSeedSameTreeWhateverOrderTheEvaluationsFinishIn) {
    kp::test_support::TempDirectory dir;
    auto a = run_rounds(dir.path() / "a.db", 3, 7, false);
    auto b = run_rounds(dir.path() / "b.db", 3, 7, true);
    EXPECT_EQ(a.tree, b.tree);
    EXPECT_EQ(a.peak, 3);  // a round's evaluations were in flight together
}

TEST(ParallelRounds, ARoundNeverOvershootsTheEvaluationBudget) {
    kp::test_support::TempDirectory dir;
    auto run = run_rounds(dir.path() / "a.db", 4, 3, false, 11);  // the baseline, then rounds of 4, 4, 2
    EXPECT_EQ(run.calls, 11);
    EXPECT_EQ(run.evaluations, 11);
    for (const auto& line : run.tree) EXPECT_EQ(line.find("pending"), std::string::npos) << line;
}

TEST(ParallelRounds, WidthOneIsTheClassicLoopAndWiderRoundsStillSearch) {
    kp::test_support::TempDirectory dir;
    auto one = run_rounds(dir.path() / "one.db", 1, 5, false);
    EXPECT_EQ(one.peak, 1);
    auto wide = run_rounds(dir.path() / "wide.db", 3, 5, false);
    EXPECT_EQ(wide.calls, one.calls);
    // A round is selected before its results are known, so its tree may differ from the one at
    // a time; both grow from the root and evaluate distinct candidates.
    EXPECT_EQ(wide.tree.size(), one.tree.size());
}

TEST(ParallelRounds, TheWidthIsStoredWithTheRunAndChecked) {
    SearchConfig config = test_config(4);
    config.parallel_evaluations = 5;
    auto back = config_from_json(config_to_json(config));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->parallel_evaluations, 5);
    config.parallel_evaluations = 0;
    EXPECT_FALSE(config_from_json(config_to_json(config)).ok());
}
