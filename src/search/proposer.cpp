#include "search/proposer.h"

namespace kp::search {

const char* feedback_kind_name(FeedbackKind kind) {
    switch (kind) {
        case FeedbackKind::none: return "none";
        case FeedbackKind::raw_metrics: return "raw_metrics";
        case FeedbackKind::tool_findings: return "tool_findings";
    }
    return "tool_findings";
}

std::optional<FeedbackKind> parse_feedback_kind(const std::string& text) {
    if (text == "none") return FeedbackKind::none;
    if (text == "raw_metrics") return FeedbackKind::raw_metrics;
    if (text == "tool_findings") return FeedbackKind::tool_findings;
    return std::nullopt;
}

}  // namespace kp::search
