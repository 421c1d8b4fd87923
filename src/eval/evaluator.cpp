#include "eval/evaluator.h"

#include <algorithm>
#include <chrono>
#include <random>

#include "common/files.h"
#include "eval/device_fault.h"
#include "eval/python_environment.h"
#include "common/utf8.h"
#include "eval/roofline_floor.h"

namespace kp {

namespace fs = std::filesystem;

std::optional<double> EvaluationReport::candidate_median_seconds() const {
    if (timing.is_object() && timing.contains("candidate")) return timing["candidate"].value("median", 0.0);
    return std::nullopt;
}

std::optional<double> EvaluationReport::speedup() const {
    if (timing.is_object() && timing.contains("speedup")) return timing["speedup"].get<double>();
    return std::nullopt;
}

std::optional<double> EvaluationReport::candidate_joules_per_call() const {
    if (!energy.is_object() || !energy.value("available", false) || !energy.contains("candidate")) return std::nullopt;
    const auto& c = energy["candidate"];
    if (!c.contains("joules_per_call") || !c["joules_per_call"].is_number()) return std::nullopt;
    return c["joules_per_call"].get<double>();
}

nlohmann::json EvaluationReport::to_json() const {
    nlohmann::json j{{"schema", "kernelpro.eval/1"},
                     {"status", failure_class_name(status)},
                     {"correct", status == FailureClass::Ok},
                     {"message", message},
                     {"task", task_name},
                     {"candidate", candidate_path},
                     {"parameters", parameters},
                     {"device", device},
                     {"correctness", correctness},
                     {"timing", timing},
                     {"sandbox", sandbox},
                     {"warnings", warnings},
                     {"seconds", {{"compile", compile_seconds}, {"verify", verify_seconds}, {"time", time_seconds}, {"total", total_seconds},
                                  {"worker_phases", worker_phases}}}};
    if (!energy.is_null()) j["energy"] = energy;
    if (candidate_build) {
        j["build"] = {{"status", build_status_name(candidate_build->status)}, {"key", candidate_build->key},
                      {"cache_hit", candidate_build->cache_hit}, {"compile_seconds", candidate_build->compile_seconds},
                      {"library", candidate_build->library.string()}, {"arch", candidate_build->arch}};
    }
    return j;
}

std::optional<double> EvaluationReport::speedup_over(const std::string& baseline) const {
    if (timing.is_object() && timing.contains("extra_speedups") && timing["extra_speedups"].contains(baseline))
        return timing["extra_speedups"][baseline].get<double>();
    return std::nullopt;
}

std::vector<std::string> reference_data_sets(const TaskSpec& task) {
    std::vector<std::string> sets;
    if (!task.reference.data_dir) return sets;
    std::error_code error;  // an unreadable folder yields no sets: the worker then reports it
    for (auto it = fs::directory_iterator(*task.reference.data_dir, error); !error && it != fs::directory_iterator();
         it.increment(error))
        if (it->path().extension() == ".safetensors") sets.push_back(it->path().string());
    std::sort(sets.begin(), sets.end());
    return sets;
}

namespace {

// The fraction of the roofline the candidate reaches, and the plausibility check: a median under
// the datasheet's floor cannot be real, the timing missed work (roofline_floor.h).
void apply_roofline_floors(const TaskSpec& task, EvaluationReport& report) {
    TaskFloors floors = task_floors(task, report.device, cache_directory());
    for (const auto& note : floors.notes) report.warnings.push_back(note);
    auto median = report.candidate_median_seconds();
    if (floors.target) {
        report.timing["roofline_floor"] = floors.target->to_json();
        if (median && *median > 0) report.timing["fraction_of_floor"] = floors.target->seconds() / *median;
    }
    if (!floors.plausibility || !median || *median <= 0) return;
    report.timing["plausibility_floor_seconds"] = floors.plausibility->seconds();
    if (*median >= floors.plausibility->seconds()) return;
    report.status = FailureClass::InvalidTiming;
    report.message = "measured " + std::to_string(*median * 1e6) + " us is below the roofline floor of " +
                     std::to_string(floors.plausibility->seconds() * 1e6) +
                     " us for the task's declared cost: the timing missed work";
}

}  // namespace

Evaluator::Evaluator(CandidateBuilder& builder, WorkerOptions worker_options)
    : builder_(builder), worker_options_(std::move(worker_options)) {}

Result<EvaluationReport> Evaluator::evaluate(const TaskSpec& task, const fs::path& candidate, const EvaluationOptions& options) {
    using Clock = std::chrono::steady_clock;
    auto start = Clock::now();
    auto say = [&](const std::string& line) {
        if (options.on_progress) options.on_progress(line);
    };
    EvaluationReport report;
    report.task_name = task.name;
    report.candidate_path = path_text(candidate);
    report.parameters = options.candidate_parameters;

    // Build everything at once: reference and baseline are trusted (no guard), the candidate is not.
    std::vector<BuildRequest> requests;
    requests.push_back(task_build_request(task, candidate, options.candidate_parameters, options.guard_candidate));
    if (task.reference.source) requests.push_back(task_build_request(task, *task.reference.source, {}, false));
    if (options.baseline_source) requests.push_back(task_build_request(task, *options.baseline_source));
    say("compiling " + std::to_string(requests.size()) + " kernel(s)");
    const double compile_start = meter_now();
    auto builds = builder_.build_many(requests);
    if (pool_) pool_->meter().note_compile({compile_start, meter_now()});
    report.compile_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    for (auto& b : builds)
        if (!b.ok()) return b.error();
    report.candidate_build = *builds[0];
    size_t next = 1;
    std::optional<BuildOutcome> reference_build, baseline_build;
    if (task.reference.source) reference_build = *builds[next++];
    if (options.baseline_source) baseline_build = *builds[next++];
    if (reference_build && !reference_build->ok())
        return make_error("the task's reference does not compile:\n" + reference_build->message);
    if (baseline_build && !baseline_build->ok())
        return make_error("the baseline " + options.baseline_source->string() + " is not usable (" +
                          build_status_name(baseline_build->status) + "):\n" + baseline_build->message);
    const BuildOutcome& built = *report.candidate_build;
    if (!built.ok()) {
        report.status = built.status == BuildStatus::CompileError ? FailureClass::CompileError : FailureClass::RejectedByGuard;
        report.message = built.message;
        report.total_seconds = std::chrono::duration<double>(Clock::now() - start).count();
        return report;
    }

    WorkerRequest request;
    request.task = to_json(task);
    if (reference_build) request.reference_library = reference_build->library.string();
    WorkerOptions worker_options = worker_options_;
    if (task.reference.pytorch) {
        // The live PyTorch reference (docs/kernelbench.md): trusted bridge libraries in a worker
        // hosted by Python.
        auto eager = find_bridge_library("eager");
        if (!eager.ok()) return eager.error();
        request.reference_library = eager->string();
        if (options.compile_baseline) {
            auto compiled = find_bridge_library("compile");
            if (!compiled.ok()) return compiled.error();
            request.extra_baselines.push_back({"compile", compiled->string()});
        }
        auto launcher = python_worker_command();
        if (!launcher.ok()) return launcher.error();
        worker_options.launcher = *launcher;
    }
    request.reference_data_sets = reference_data_sets(task);
    if (baseline_build) request.baseline_library = baseline_build->library.string();
    request.candidate_library = built.library.string();
    request.launch_gate_library = built.launch_gate.string();
    request.seed = options.seed;
    if (request.seed == 0) {
        std::random_device entropy;
        request.seed = (static_cast<uint64_t>(entropy()) << 32) ^ entropy();
    }
    request.trials = options.trials;
    request.timing = options.timing;
    request.energy = options.energy;
    request.call_timeout_seconds = options.call_timeout_seconds;
    request.sandbox = options.sandbox;
    if (task.reference.pytorch) {
        // The module's Python code may still read its own files once the sandbox is on.
        for (const auto& p : python_read_paths()) request.sandbox.read_paths.push_back(p);
        request.sandbox.read_paths.push_back(task.directory.string());
    }
    request.variant = options.variant;

    worker_options.on_progress = [&](const nlohmann::json& m) {
        // The channel carries what the worker (and so candidate code) wrote: read defensively.
        auto phase = m.find("phase");
        auto detail = m.find("detail");
        auto number = [&](const char* key) {
            auto v = detail->find(key);
            return v != detail->end() && v->is_number() ? v->get<double>() : 0.0;
        };
        if (phase == m.end() || !phase->is_string()) return;
        if (*phase == "timing" && detail != m.end() && detail->is_object())
            say("timing: " + std::to_string(static_cast<long long>(number("samples"))) + " samples, median " +
                std::to_string(number("median_s") * 1e6) + " us");
        else say(phase->get<std::string>());
    };
    say("starting worker");
    Result<WorkerOutcome> outcome = make_error("the worker did not run");
    std::optional<GpuSlot> slot;
    if (!pool_) {
        outcome = run_worker(request, worker_options);
    } else {
        // A device that fails gives the evaluation back: the pool runs this again on another slot.
        auto ran = pool_->run([&](int, const GpuSlot& device) {
            slot = device;
            outcome = run_worker(request, pinned_to(worker_options, device));
            return device_verdict(outcome);
        });
        if (!ran.ok()) return ran.error();
    }
    if (!outcome.ok()) return outcome.error();
    if (outcome->status != FailureClass::Ok && outcome->phase == "reference")
        return make_error("the task's reference failed before any candidate code ran: " + outcome->message);
    report.status = outcome->status;
    report.message = outcome->message;
    report.device = outcome->hello;
    if (slot && report.device.is_object()) {
        report.device["index"] = slot->index;  // the worker sees its GPU as device 0
        if (!slot->uuid.empty() && !report.device.contains("uuid")) report.device["uuid"] = slot->uuid;
    }
    report.worker_log = outcome->log;
    report.sandbox = outcome->sandbox;
    for (const auto& note : outcome->sandbox_notes) report.warnings.push_back(note);
    if (outcome->status == FailureClass::Ok) {
        report.correctness = outcome->result.value("correctness", nlohmann::json::object());
        report.timing = outcome->result.value("timing", nlohmann::json::object());
        if (outcome->result.contains("energy")) report.energy = outcome->result["energy"];
        for (const auto& w : outcome->result.value("warnings", nlohmann::json::array())) report.warnings.push_back(w);
    }
    if (report.status == FailureClass::Ok) apply_roofline_floors(task, report);
    // Where the worker's time went, from the phases it reported.
    auto at = [&](const char* phase) -> std::optional<double> {
        auto it = outcome->phase_started.find(phase);
        return it == outcome->phase_started.end() ? std::nullopt : std::optional<double>(it->second);
    };
    double worker_total = outcome->wall_seconds;
    double timing_start = at("warmup").value_or(at("timing").value_or(worker_total));
    report.verify_seconds = timing_start;  // context start-up, reference, load, correctness
    report.worker_phases = outcome->phase_started;
    report.worker_phases["end"] = worker_total;
    report.time_seconds = worker_total - timing_start;
    report.total_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return report;
}

}  // namespace kp
