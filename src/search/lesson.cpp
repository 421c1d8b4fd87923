#include "search/lesson.h"

#include <cstdio>


namespace kp::search {

std::string describe_lesson(const Lesson& lesson) {
    std::string diagnosis = lesson.roofline_class.empty() ? "unclassified" : lesson.roofline_class;
    for (const auto& tool : lesson.tool_names) diagnosis += "; " + tool;
    std::string outcome;
    if (lesson.speedup_ratio) {
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "%.2fx", *lesson.speedup_ratio);
        outcome = buffer;
    } else {
        outcome = lesson.failure ? status_class_name(*lesson.failure) : "unknown";
    }
    return "[" + diagnosis + "] " + proposal_kind_name(lesson.change_kind) + ": " + lesson.change_text + " -> " +
           outcome;
}

}  // namespace kp::search
