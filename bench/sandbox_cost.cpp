#include "sandbox_cost.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include <fmt/format.h>

#include "eval/evaluator.h"
#include "eval/sample_statistics.h"
#include "eval/sandbox_probe.h"

namespace kp::bench {

namespace {

void sandbox_on(bool on) {
    if (on) ::unsetenv("KERNELPRO_SANDBOX_DISABLE");
    else ::setenv("KERNELPRO_SANDBOX_DISABLE", "all", 1);
}

double median(std::vector<double> v) { return v.empty() ? 0.0 : summarize(std::move(v)).median; }

// Seconds of one sandbox_check worker, start to end.
double probe_seconds() {
    auto start = std::chrono::steady_clock::now();
    (void)probe_worker_sandbox();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int run_sandbox_cost(CandidateBuilder& builder, const std::vector<std::filesystem::path>& task_dirs,
                     const std::vector<std::string>& only, int repeats, const std::string& json_out) {
    Evaluator evaluator(builder);
    nlohmann::json all = nlohmann::json::object();
    std::vector<double> probe_on, probe_off;
    for (int i = 0; i < 2 * repeats; ++i) {
        sandbox_on(i % 2 == 0);
        (i % 2 == 0 ? probe_on : probe_off).push_back(probe_seconds());
    }
    std::printf("\n| task | status (on / off) | evaluations | worker s, sandbox on | off | cost per evaluation | cost |\n");
    std::printf("|---|---|---|---|---|---|---|\n");
    std::printf("| (sandbox_check, no GPU) | - | %d | %.4f | %.4f | %+.1f ms | - |\n", repeats, median(probe_on), median(probe_off),
                1e3 * (median(probe_on) - median(probe_off)));
    all["sandbox_check"] = {{"on_seconds", probe_on}, {"off_seconds", probe_off}};
    for (const auto& dir : task_dirs) {
        auto task = load_task(dir);
        if (!task || (!only.empty() && std::find(only.begin(), only.end(), task->name) == only.end())) continue;
        EvaluationOptions options;
        std::vector<double> on, off;
        std::string status[2];
        for (int i = 0; i < 2 * repeats + 1; ++i) {
            const bool with_sandbox = i % 2 == 1;  // the first (off) run warms the compile cache
            sandbox_on(with_sandbox);
            auto report = evaluator.evaluate(*task, dir / "candidates" / "fast.cu", options);
            if (!report) {
                std::fprintf(stderr, "%s: %s\n", task->name.c_str(), report.error().message.c_str());
                break;
            }
            status[with_sandbox ? 0 : 1] = failure_class_name(report->status);
            if (i > 0) (with_sandbox ? on : off).push_back(report->verify_seconds + report->time_seconds);
        }
        double cost = median(on) - median(off);
        std::printf("| %s | %s / %s | %zu | %.3f | %.3f | %+.1f ms | %+.1f%% |\n", task->name.c_str(), status[0].c_str(),
                    status[1].c_str(), on.size() + off.size(), median(on), median(off), 1e3 * cost,
                    median(off) > 0 ? 100 * cost / median(off) : 0.0);
        all[task->name] = {{"on_seconds", on}, {"off_seconds", off}};
    }
    sandbox_on(true);
    if (!json_out.empty()) std::ofstream(json_out) << all.dump(2);
    return 0;
}

}  // namespace kp::bench
