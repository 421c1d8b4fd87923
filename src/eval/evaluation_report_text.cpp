#include "eval/evaluation_report_text.h"

#include <fmt/format.h>

#include "sandbox/sandbox_report.h"

namespace kp {

namespace {
std::string us(double seconds) { return fmt::format("{:.2f} us", seconds * 1e6); }

std::string summary_row(const char* label, const nlohmann::json& s) {
    return fmt::format("  {:<10} {:>12} {:>12} {:>12} {:>12} {:>12} {:>7} {:>7.2f}% {:>6}\n", label, us(s.value("median", 0.0)),
                       us(s.value("q1", 0.0)), us(s.value("q3", 0.0)), us(s.value("min", 0.0)), us(s.value("max", 0.0)),
                       s.value("count", 0), 100.0 * s.value("relative_stddev", 0.0), s.value("sm_clock_mhz_median", 0u));
}
std::string energy_row(const char* label, const nlohmann::json& e) {
    return fmt::format("  {:<10} {:>12.4g} {:>12.4g} {:>12.4g} {:>7.2f}% {:>8} {:>6} {:>9}\n", label, 1e3 * e.value("joules_per_call", 0.0),
                       1e3 * e.value("joules_per_call_min", 0.0), 1e3 * e.value("joules_per_call_max", 0.0),
                       100.0 * e.value("relative_stddev", 0.0), e.value("calls_per_window", 0), e["windows"].size(),
                       e.value("throttled_windows", 0));
}

// Joules per call (millijoules in the table) with the spread over the windows, and the counter's facts.
std::string render_energy(const nlohmann::json& e) {
    if (!e.value("available", false)) return "energy     not measured: " + e.value("reason", std::string("no counter")) + "\n";
    std::string out = fmt::format("\n  {:<10} {:>12} {:>12} {:>12} {:>8} {:>8} {:>6} {:>9}\n", "energy", "mJ/call", "min", "max",
                                  "spread", "calls", "windows", "throttled");
    if (e.contains("baseline")) out += energy_row("baseline", e["baseline"]);
    if (e.contains("candidate")) out += energy_row("candidate", e["candidate"]);
    out += fmt::format("\nenergy     counter updates every {:.1f} ms, windows of {:.2f} s, idle {:.1f} W", 1e3 * e.value("counter_update_period_s", 0.0),
                       e.value("window_seconds", 0.0), e.value("idle_watts", 0.0));
    if (e.contains("energy_ratio")) out += fmt::format("; the candidate uses {:.3f}x less energy per call", e["energy_ratio"].get<double>());
    return out + "\n";
}
}  // namespace

std::string render_evaluation_text(const EvaluationReport& r) {
    std::string out;
    out += fmt::format("task       {}\ncandidate  {}\n", r.task_name, r.candidate_path);
    if (!r.parameters.empty()) {
        std::string p;
        for (const auto& [k, v] : r.parameters) p += k + "=" + v + " ";
        out += "parameters " + p + "\n";
    }
    if (r.device.is_object() && r.device.contains("name"))
        out += fmt::format("device     {} (sm {}, driver {})\n", r.device.value("name", ""), r.device.value("compute_capability", ""),
                           r.device.value("driver_version", ""));
    out += fmt::format("status     {}{}\n", failure_class_name(r.status), r.status == FailureClass::Ok ? " (correct)" : "");
    if (r.sandbox.is_object()) out += "sandbox    " + sandbox::SandboxReport::from_json(r.sandbox).summary() + "\n";
    if (!r.message.empty()) out += "\n" + r.message + (r.message.back() == '\n' ? "" : "\n");
    if (r.correctness.is_object() && r.correctness.contains("trials")) {
        double max_abs = 0, max_rel = 0;
        for (const auto& t : r.correctness["trials"])
            for (const auto& o : t["outputs"]) {
                max_abs = std::max(max_abs, o.value("max_abs_error", 0.0));
                max_rel = std::max(max_rel, o.value("max_rel_error", 0.0));
            }
        out += fmt::format("correct    {} trials x 2 runs, max abs error {:.3g}, max rel error {:.3g}\n",
                           r.correctness["trials"].size(), max_abs, max_rel);
    }
    if (r.timing.is_object() && r.timing.contains("candidate")) {
        out += fmt::format("\n  {:<10} {:>12} {:>12} {:>12} {:>12} {:>12} {:>7} {:>8} {:>6}\n", "", "median", "q1", "q3", "min",
                           "max", "samples", "noise", "MHz");
        if (r.timing.contains("baseline"))
            out += summary_row(r.timing.value("baseline_is_reference", true) ? "reference" : "baseline", r.timing["baseline"]);
        if (r.timing.contains("extra_baselines"))
            for (const auto& [name, summary] : r.timing["extra_baselines"].items()) out += summary_row(name.c_str(), summary);
        out += summary_row("candidate", r.timing["candidate"]);
        if (r.timing.contains("speedup")) out += fmt::format("\nspeedup    {:.3f}x\n", r.timing["speedup"].get<double>());
        if (r.timing.contains("extra_speedups"))
            for (const auto& [name, x] : r.timing["extra_speedups"].items())
                out += fmt::format("speedup    {:.3f}x over {}\n", x.get<double>(), name);
        if (r.timing.contains("roofline_floor"))
            out += fmt::format("roofline   floor {} ({}-bound), candidate at {:.1f}% of it\n",
                               us(r.timing["roofline_floor"].value("floor_seconds", 0.0)),
                               r.timing["roofline_floor"].value("bound", ""), 100.0 * r.timing.value("fraction_of_floor", 0.0));
        out += fmt::format("stopped    {} after {} samples; {} timed outputs checked; host-clock flags {}; throttled samples "
                           "dropped and re-taken {}, kept {}\n",
                           r.timing.value("stop_reason", ""), r.timing.value("samples", 0), r.timing.value("checked_timed_outputs", 0),
                           r.timing.value("host_flagged_samples", 0), r.timing.value("throttled_samples_discarded", 0),
                           r.timing.value("throttled_samples", 0));
        if (r.timing.value("throttled_samples", 0) > 0)
            out += fmt::format("warning    the GPU could not give unthrottled samples (power cap, thermal or hardware slowdown): "
                               "{} of {} kept samples were taken while it slowed itself\n",
                               r.timing.value("throttled_samples", 0), r.timing.value("samples", 0));
    }
    if (r.energy.is_object()) out += render_energy(r.energy);
    for (const auto& w : r.warnings) out += "warning    " + w + "\n";
    out += fmt::format("time       compile {:.2f} s, verify {:.2f} s, time {:.2f} s, total {:.2f} s\n", r.compile_seconds,
                       r.verify_seconds, r.time_seconds, r.total_seconds);
    return out;
}

}  // namespace kp
