// Search memory: lessons recorded after every evaluated change, served to later proposals of the
// same run and, across runs, of similar tasks (same task name, or same roofline class and tool
// set). Lessons live in the run store, so they survive the run and a crash.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "common/result.h"
#include "search/candidate.h"
#include "search/lesson.h"
#include "search/search_tree.h"
#include "store/run_store.h"

namespace kp::search {

class SearchMemory {
public:
    // `enabled` false is the memory-off ablation: lessons are still recorded (they cost nothing
    // and later runs may use them) but never shown to proposers.
    SearchMemory(store::RunStore& store, bool enabled, int lessons_per_scope)
        : store_(store), enabled_(enabled), lessons_per_scope_(lessons_per_scope) {}

    // This run's lessons (newest first), then other runs' lessons for a similar task. `diagnosis`
    // is the evaluation of the node about to be refined.
    Result<std::vector<Lesson>> lessons_for(const TaskIdentity& task, std::int64_t run_id,
                                            const EvaluationOutcome* diagnosis) const;

    // The lesson taught by evaluated node `child`: its parent's diagnosis, the change, the outcome.
    static store::LessonRecord lesson_from(const SearchTree& tree, std::int64_t child, const TaskIdentity& task,
                                           std::int64_t run_id);

    static Lesson from_record(const store::LessonRecord& record, LessonScope scope);

private:
    store::RunStore& store_;
    bool enabled_;
    int lessons_per_scope_;
};

// Sorted tool names joined with commas: the tool set as one comparable key.
std::string tool_set_key(const std::vector<std::string>& tool_names);

}  // namespace kp::search
