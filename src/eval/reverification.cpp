#include "eval/reverification.h"

#include <algorithm>
#include <cstdio>
#include <random>

namespace kp {

std::string Reverification::summary() const {
    char head[160];
    std::snprintf(head, sizeof head, "re-verified in a fresh worker (seed %llu, poison 0x%02x/0x%02x, buffers shifted): %s",
                  static_cast<unsigned long long>(seed), variant.poison_a, variant.poison_b, failure_class_name(report.status));
    std::string out = head;
    if (auto median = report.candidate_median_seconds()) {
        char timing[64];
        std::snprintf(timing, sizeof timing, ", median %.2f us", *median * 1e6);
        out += timing;
    }
    if (!passed() && !report.message.empty()) out += ": " + report.message.substr(0, report.message.find('\n'));
    return out;
}

Result<Reverification> reverify_candidate(Evaluator& evaluator, const TaskSpec& task, const std::filesystem::path& source,
                                          EvaluationOptions options) {
    std::random_device entropy;
    Reverification check;
    do check.seed = (static_cast<uint64_t>(entropy()) << 32) ^ entropy();
    while (check.seed == 0 || check.seed == options.seed);
    // Poisons that are not the defaults (0xFE: a huge negative float, NaN in fp16; 0xA5: other
    // garbage), and buffers that start elsewhere.
    check.variant.poison_a = 0xFE;
    check.variant.poison_b = 0xA5;
    check.variant.layout = check.seed | 1;
    options.seed = check.seed;
    options.variant = check.variant;
    options.trials = std::max(options.trials, 5);
    auto report = evaluator.evaluate(task, source, options);
    if (!report) return report.error();
    check.report = std::move(*report);
    return check;
}

}  // namespace kp
