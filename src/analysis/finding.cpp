#include "analysis/finding.h"

#include <cmath>
#include <cstdio>

namespace kp::analysis {

std::string_view to_string(Severity value) {
    switch (value) {
        case Severity::low: return "low";
        case Severity::medium: return "medium";
        case Severity::high: return "high";
    }
    return "low";
}

Severity severity_for_gain(double estimated_gain) {
    if (estimated_gain >= 0.30) return Severity::high;
    if (estimated_gain >= 0.10) return Severity::medium;
    return Severity::low;
}

std::string format_number(double value) {
    char buffer[64];
    const double magnitude = std::fabs(value);
    if (magnitude >= 1e12) std::snprintf(buffer, sizeof buffer, "%.3gT", value / 1e12);
    else if (magnitude >= 1e9) std::snprintf(buffer, sizeof buffer, "%.3gG", value / 1e9);
    else if (magnitude >= 1e6) std::snprintf(buffer, sizeof buffer, "%.3gM", value / 1e6);
    else if (magnitude >= 1e4) std::snprintf(buffer, sizeof buffer, "%.3gk", value / 1e3);
    else std::snprintf(buffer, sizeof buffer, "%.4g", value);
    return buffer;
}

std::string format_percent(double fraction) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.0f%%", fraction * 100.0);
    return buffer;
}

std::string format_bytes(double bytes) {
    char buffer[32];
    if (bytes >= 1e12) std::snprintf(buffer, sizeof buffer, "%.3g TB", bytes / 1e12);
    else if (bytes >= 1e9) std::snprintf(buffer, sizeof buffer, "%.3g GB", bytes / 1e9);
    else if (bytes >= 1e6) std::snprintf(buffer, sizeof buffer, "%.3g MB", bytes / 1e6);
    else if (bytes >= 1e3) std::snprintf(buffer, sizeof buffer, "%.3g kB", bytes / 1e3);
    else std::snprintf(buffer, sizeof buffer, "%.0f B", bytes);
    return buffer;
}

Finding make_finding(std::string tool, double estimated_gain, std::string summary, std::vector<Remedy> remedies) {
    Finding f;
    f.tool = std::move(tool);
    f.estimated_gain = estimated_gain;
    f.severity = severity_for_gain(estimated_gain);
    f.summary = std::move(summary);
    f.remedies = std::move(remedies);
    return f;
}

Evidence metric_evidence(std::string name, double value) {
    return Evidence{Evidence::Kind::metric, std::move(name), format_number(value)};
}

Evidence text_evidence(Evidence::Kind kind, std::string name, std::string value) {
    return Evidence{kind, std::move(name), std::move(value)};
}

}  // namespace kp::analysis
