// A search-memory lesson: "with this diagnosis, this change gave that outcome". Lessons are what
// proposers learn from, within a run and across runs of similar tasks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "search/evaluation_outcome.h"
#include "search/proposal.h"

namespace kp::search {

enum class LessonScope { this_run, other_run };

struct Lesson {
    // Diagnosis of the parent kernel the change was made to.
    std::string roofline_class;
    std::vector<std::string> tool_names;  // sorted
    // The change.
    ProposalKind change_kind = ProposalKind::parameter_move;
    std::string change_text;
    // The outcome: a speedup ratio over the parent when the child was correct, else its failure.
    std::optional<double> speedup_ratio;
    std::optional<StatusClass> failure;
    // Where it was learned.
    std::string task_name;
    std::optional<std::int64_t> run_id;
    LessonScope scope = LessonScope::this_run;
};

// One line for a prompt, e.g. "[memory_bound; uncoalesced_access] rewrite: vectorize loads -> 1.80x".
std::string describe_lesson(const Lesson& lesson);

}  // namespace kp::search
