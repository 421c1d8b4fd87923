#include "search/search_memory.h"

#include <sstream>

namespace kp::search {

namespace {

constexpr size_t kMaxChangeText = 240;

std::vector<std::string> split_tool_set(const std::string& key) {
    std::vector<std::string> tools;
    std::stringstream stream(key);
    for (std::string tool; std::getline(stream, tool, ',');)
        if (!tool.empty()) tools.push_back(tool);
    return tools;
}

// A change without a rationale is described by what it changed: "BLOCK=128->256".
std::string describe_change(const TreeNode& parent, const TreeNode& child) {
    if (!child.rationale.empty()) return child.rationale.substr(0, kMaxChangeText);
    std::string text;
    for (const auto& [name, value] : child.candidate.params) {
        auto before = parent.candidate.params.find(name);
        if (before != parent.candidate.params.end() && before->second == value) continue;
        if (!text.empty()) text += ", ";
        text += name + "=" + (before == parent.candidate.params.end() ? "" : before->second + "->") + value;
    }
    if (child.candidate.source != parent.candidate.source) text += text.empty() ? "new source" : "; new source";
    return text.empty() ? "no visible change" : text.substr(0, kMaxChangeText);
}

}  // namespace

std::string tool_set_key(const std::vector<std::string>& tool_names) {
    std::string key;
    for (const auto& tool : tool_names) key += (key.empty() ? "" : ",") + tool;
    return key;
}

Result<std::vector<Lesson>> SearchMemory::lessons_for(const TaskIdentity& task, std::int64_t run_id,
                                                      const EvaluationOutcome* diagnosis) const {
    std::vector<Lesson> lessons;
    if (!enabled_) return lessons;
    auto own = store_.lessons_of_run(run_id, lessons_per_scope_);
    if (!own) return own.error();
    for (const auto& record : *own) lessons.push_back(from_record(record, LessonScope::this_run));
    store::LessonQuery query;
    query.task_name = task.name;
    if (diagnosis) {
        query.roofline_class = diagnosis->roofline_class;
        query.tool_names = tool_set_key(diagnosis->tool_names());
    }
    query.exclude_run_id = run_id;
    query.limit = lessons_per_scope_;
    auto similar = store_.similar_lessons(query);
    if (!similar) return similar.error();
    for (const auto& record : *similar) lessons.push_back(from_record(record, LessonScope::other_run));
    return lessons;
}

store::LessonRecord SearchMemory::lesson_from(const SearchTree& tree, std::int64_t child_id,
                                              const TaskIdentity& task, std::int64_t run_id) {
    const auto& child = tree.node(child_id);
    const auto& parent = tree.node(*child.parent);
    store::LessonRecord record;
    record.run_id = run_id;
    record.node_id = child_id;
    record.task_name = task.name;
    if (parent.outcome) {
        record.roofline_class = parent.outcome->roofline_class;
        record.tool_names = tool_set_key(parent.outcome->tool_names());
    }
    record.change_kind = child.origin == NodeOrigin::rewrite ? "rewrite" : "parameter_move";
    record.change_text = describe_change(parent, child);
    if (child.correct()) {
        record.speedup_ratio = parent.correct() && parent.speedup_over_baseline > 0
                                   ? child.speedup_over_baseline / parent.speedup_over_baseline
                                   : child.speedup_over_baseline;
    } else {
        record.failure_class = status_class_name(child.outcome->status);
    }
    return record;
}

Lesson SearchMemory::from_record(const store::LessonRecord& record, LessonScope scope) {
    Lesson lesson;
    lesson.roofline_class = record.roofline_class;
    lesson.tool_names = split_tool_set(record.tool_names);
    lesson.change_kind = parse_proposal_kind(record.change_kind).value_or(ProposalKind::rewrite);
    lesson.change_text = record.change_text;
    lesson.speedup_ratio = record.speedup_ratio;
    if (record.failure_class) lesson.failure = parse_status_class(*record.failure_class);
    lesson.task_name = record.task_name;
    lesson.run_id = record.run_id;
    lesson.scope = scope;
    return lesson;
}

}  // namespace kp::search
