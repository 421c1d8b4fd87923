// RunStore: search-memory lessons.
#include "store/run_store.h"

#include "store/collect_rows.h"

namespace kp::store {

namespace {

constexpr const char* kLessonColumns =
    "id, run_id, node_id, task_name, roofline_class, tool_names, change_kind, change_text, speedup_ratio,"
    " failure_class, created_at";

LessonRecord read_lesson(const SqliteStatement& row) {
    LessonRecord lesson;
    lesson.id = row.column_int(0);
    lesson.run_id = row.column_optional_int(1);
    lesson.node_id = row.column_optional_int(2);
    lesson.task_name = row.column_text(3);
    lesson.roofline_class = row.column_text(4);
    lesson.tool_names = row.column_text(5);
    lesson.change_kind = row.column_text(6);
    lesson.change_text = row.column_text(7);
    lesson.speedup_ratio = row.column_optional_double(8);
    lesson.failure_class = row.column_optional_text(9);
    lesson.created_at = row.column_text(10);
    return lesson;
}

}  // namespace

Status RunStore::insert_lesson(const LessonRecord& lesson) {
    auto insert = database_.prepare(
        "INSERT INTO lessons (run_id, node_id, task_name, roofline_class, tool_names, change_kind, change_text,"
        " speedup_ratio, failure_class) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!insert) return insert.error();
    insert->bind(1, lesson.run_id).bind(2, lesson.node_id).bind(3, lesson.task_name).bind(4, lesson.roofline_class);
    insert->bind(5, lesson.tool_names).bind(6, lesson.change_kind).bind(7, lesson.change_text);
    insert->bind(8, lesson.speedup_ratio).bind(9, lesson.failure_class);
    return insert->run();
}

Status RunStore::record_lesson(const LessonRecord& lesson) { return insert_lesson(lesson); }

Result<std::vector<LessonRecord>> RunStore::lessons_of_run(std::int64_t run_id, int limit) {
    auto query = database_.prepare(std::string("SELECT ") + kLessonColumns +
                                   " FROM lessons WHERE run_id = ? ORDER BY id DESC LIMIT ?");
    if (!query) return query.error();
    query->bind(1, run_id).bind(2, limit);
    return collect_rows<LessonRecord>(*query, read_lesson);
}

Result<std::vector<LessonRecord>> RunStore::similar_lessons(const LessonQuery& lesson_query) {
    // Same task first (most specific), then same diagnosis; newest first within each.
    auto query = database_.prepare(
        std::string("SELECT ") + kLessonColumns +
        " FROM lessons WHERE (run_id IS NULL OR run_id != ?1)"
        "   AND (task_name = ?2 OR (roofline_class = ?3 AND tool_names = ?4 AND ?3 != ''))"
        " ORDER BY (task_name = ?2) DESC, id DESC LIMIT ?5");
    if (!query) return query.error();
    query->bind(1, lesson_query.exclude_run_id.value_or(-1)).bind(2, lesson_query.task_name);
    query->bind(3, lesson_query.roofline_class).bind(4, lesson_query.tool_names).bind(5, lesson_query.limit);
    return collect_rows<LessonRecord>(*query, read_lesson);
}

}  // namespace kp::store
