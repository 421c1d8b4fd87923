// A micro-profiling tool's diagnosis: what is wrong, how much time fixing it could save, the
// evidence (metric values, SASS instructions, source lines), one or two sentences of guidance for
// people and LLMs, and the typed remedies code acts on (remedy.h). The one finding type: the
// search carries it from the profile to the proposers and the store.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/remedy.h"

namespace kp::analysis {

enum class Severity { low, medium, high };
std::string_view to_string(Severity value);
// high >= 0.30 of kernel time, medium >= 0.10, else low.
Severity severity_for_gain(double estimated_gain);

struct Evidence {
    enum class Kind { metric, sass, source };
    Kind kind = Kind::metric;
    std::string name;   // metric name, "0x0110" (SASS offset) or "kernels.cu:14"
    std::string value;  // formatted value, or the instruction / source text
    bool sampled = false;  // a line from the call's PC samples (line_evidence.h): only a profile that sampled has it
};

struct Finding {
    std::string tool;           // the tool's registered name: what code that reacts to a finding reads
    Severity severity = Severity::low;
    double estimated_gain = 0;  // fraction of kernel time a fix could save (0..1)
    std::string summary;        // one line: what is wrong, with the key number
    std::string guidance;       // one or two specific, actionable sentences
    std::vector<Evidence> evidence;
    std::vector<Remedy> remedies;  // what to change; the tuner and the prompts read these, not the prose
};

// A finding built by hand (tests, synthetic searches): the rest stays empty.
Finding make_finding(std::string tool, double estimated_gain, std::string summary, std::vector<Remedy> remedies = {});

// Helpers that format evidence the same way everywhere.
Evidence metric_evidence(std::string name, double value);
Evidence text_evidence(Evidence::Kind kind, std::string name, std::string value);
std::string format_number(double value);  // 1.23e9 -> "1.23G", 0.456 -> "0.456"
std::string format_percent(double fraction);  // 0.456 -> "46%"
std::string format_bytes(double bytes);       // 4.56e9 -> "4.56 GB"

}  // namespace kp::analysis
