// Search memory: every evaluated change becomes a lesson in the store; later proposals of the same
// run see it; later runs see it when the task is the same or diagnosed alike; memory off hides it.
#include "driver_fixture.h"
#include "search/search_memory.h"

using namespace kp::search;
using namespace kp::search::synthetic;

namespace {

EvaluationOutcome by_path(const Candidate& candidate) {
    if (candidate.source.find(".r1") != std::string::npos) return failed_outcome(StatusClass::compile_error);
    return rugged_outcome(candidate.source, 0.0);
}

struct Run {
    std::int64_t run_id = 0;
    std::vector<ProposalRequest> requests;
};

Run run_search(kp::store::RunStore& store, const TaskIdentity& task, bool memory, int evaluations) {
    FunctionEvaluator evaluator(by_path);
    FunctionProposer proposer(uniform_children(3), 2);
    SearchDriver driver(store, evaluator, proposer);
    auto config = test_config(evaluations);
    config.memory_enabled = memory;
    auto outcome = driver.start(task, kBaseline, config);
    EXPECT_TRUE(outcome);
    return {outcome ? outcome->run_id : 0, proposer.requests};
}

}  // namespace

TEST(Memory, LessonsAreRecordedForEveryEvaluatedChange) {
    kp::test_support::TempDirectory dir;
    auto store = open_store(dir.path() / "runs.db");
    auto run = run_search(store, kTask, true, 20);
    auto lessons = store.lessons_of_run(run.run_id, 100);
    ASSERT_TRUE(lessons);
    EXPECT_EQ(lessons->size(), 19u);  // every node but the baseline
    bool saw_failure = false, saw_speedup = false;
    for (const auto& lesson : *lessons) {
        EXPECT_EQ(lesson.task_name, kTask.name);
        EXPECT_FALSE(lesson.change_text.empty());
        EXPECT_NE(lesson.speedup_ratio.has_value(), lesson.failure_class.has_value());
        saw_failure |= lesson.failure_class.value_or("") == "compile_error";
        saw_speedup |= lesson.speedup_ratio.has_value();
        if (lesson.speedup_ratio) {
            EXPECT_EQ(lesson.roofline_class, "memory_bound");  // the parent's diagnosis
            EXPECT_EQ(lesson.tool_names, "uncoalesced_access");
        }
    }
    EXPECT_TRUE(saw_failure);
    EXPECT_TRUE(saw_speedup);
}

TEST(Memory, LaterProposalsSeeEarlierLessonsOfTheRun) {
    kp::test_support::TempDirectory dir;
    auto store = open_store(dir.path() / "runs.db");
    auto run = run_search(store, kTask, true, 20);
    ASSERT_GT(run.requests.size(), 3u);
    EXPECT_TRUE(run.requests.front().lessons.empty());  // nothing learned before the first proposal
    const auto& late = run.requests.back();
    ASSERT_FALSE(late.lessons.empty());
    for (const auto& lesson : late.lessons) EXPECT_EQ(lesson.scope, LessonScope::this_run);
    // A lesson names the change and its outcome, in a line a prompt can use.
    const auto line = describe_lesson(late.lessons.front());
    EXPECT_NE(line.find("[memory_bound; uncoalesced_access]"), std::string::npos) << line;
    EXPECT_NE(line.find(" -> "), std::string::npos) << line;
}

TEST(Memory, OffMeansProposersSeeNothingButLessonsAreKept) {
    kp::test_support::TempDirectory dir;
    auto store = open_store(dir.path() / "runs.db");
    auto run = run_search(store, kTask, false, 20);
    for (const auto& request : run.requests) EXPECT_TRUE(request.lessons.empty());
    EXPECT_EQ(store.lessons_of_run(run.run_id, 100)->size(), 19u);
}

TEST(Memory, LaterRunsOfSimilarTasksSeeLessons) {
    kp::test_support::TempDirectory dir;
    auto store = open_store(dir.path() / "runs.db");
    auto first = run_search(store, kTask, true, 12);

    // Same task name: the very first proposal already sees the first run's lessons.
    auto same_task = run_search(store, kTask, true, 3);
    ASSERT_FALSE(same_task.requests.empty());
    const auto& seen = same_task.requests.front().lessons;
    ASSERT_FALSE(seen.empty());
    for (const auto& lesson : seen) {
        EXPECT_EQ(lesson.scope, LessonScope::other_run);
        EXPECT_EQ(lesson.run_id, first.run_id);
    }

    // Another task diagnosed alike (same roofline class and tools) sees them too.
    auto alike = run_search(store, {"other_task", "fp"}, true, 3);
    EXPECT_FALSE(alike.requests.front().lessons.empty());

    // A task with another diagnosis does not.
    SearchMemory memory(store, true, 8);
    EvaluationOutcome compute_bound = correct_outcome(1.0);
    compute_bound.roofline_class = "compute_bound";
    auto unrelated = memory.lessons_for({"third_task", "fp"}, 9999, &compute_bound);
    ASSERT_TRUE(unrelated);
    EXPECT_TRUE(unrelated->empty());
}
