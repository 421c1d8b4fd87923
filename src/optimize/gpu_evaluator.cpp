#include "optimize/gpu_evaluator.h"

#include <algorithm>
#include <system_error>

#include "analysis/feedback.h"
#include "common/files.h"
#include "common/utf8.h"
#include "diagnose/profile_candidate.h"
#include "eval/roofline_floor.h"
#include "optimize/claim_check.h"
#include "eval/sample_statistics.h"
#include "profile/ptxas_report.h"
#include "search/proposers/tuner_proposer.h"

namespace kp::optimize {

namespace fs = std::filesystem;

namespace {

// The tree's walk replaces the fixed plan's findings and feedback: the main kernel's findings for
// the tuner, every kernel's feedback (as its leaf renders it) for the writer, and the walk itself
// (path, actions taken and dropped, cost) in the evaluation's details.
void apply_tree(const autoprofiler::TreeChoice& choice, const diagnose::ProfileReport& profiled, const fs::path& reply,
                search::EvaluationOutcome& outcome) {
    auto walks = autoprofiler::walk_profile(choice, profiled, reply);
    if (walks.empty()) return;
    outcome.findings = walks.front().findings;
    outcome.findings_summary.clear();
    nlohmann::json record = nlohmann::json::array();
    for (const auto& w : walks) {
        outcome.findings_summary += w.feedback;
        auto j = autoprofiler::to_json(w);
        j.erase("findings");
        j.erase("feedback");
        record.push_back(j);
    }
    outcome.details["profile_tree"] = {{"tree", choice.name}, {"kernels", record}};
}

}  // namespace

search::StatusClass status_class_of(FailureClass failure) {
    using search::StatusClass;
    switch (failure) {
        case FailureClass::Ok: return StatusClass::ok;
        case FailureClass::CompileError: return StatusClass::compile_error;
        case FailureClass::RejectedByGuard: return StatusClass::rejected_by_guard;
        case FailureClass::Crash: return StatusClass::crash;
        case FailureClass::Timeout: return StatusClass::timeout;
        case FailureClass::OutOfMemory: return StatusClass::out_of_memory;
        case FailureClass::Incorrect: return StatusClass::incorrect;
        case FailureClass::InvalidTiming: return StatusClass::invalid_timing;
        case FailureClass::RejectedBySandbox: return StatusClass::rejected_by_sandbox;
    }
    return StatusClass::crash;
}

nlohmann::json energy_summary(const nlohmann::json& energy) {
    const auto& c = energy["candidate"];
    std::vector<double> watts, clocks;
    for (const auto& w : c.value("windows", nlohmann::json::array())) {
        watts.push_back(w.value("average_watts", 0.0));
        if (w.contains("state") && w["state"].contains("sm_clock_mhz") && w["state"]["sm_clock_mhz"].is_number())
            clocks.push_back(w["state"]["sm_clock_mhz"].get<double>());
    }
    nlohmann::json j = {{"joules_per_call", c.value("joules_per_call", 0.0)},
                        {"joules_per_call_stddev", c.value("joules_per_call_stddev", 0.0)},
                        {"relative_stddev", c.value("relative_stddev", 0.0)},
                        {"throttled_windows", c.value("throttled_windows", 0)},
                        {"idle_watts", energy.value("idle_watts", 0.0)},
                        {"counter_update_period_s", energy.value("counter_update_period_s", 0.0)},
                        {"window_seconds", energy.value("window_seconds", 0.0)}};
    if (!watts.empty()) j["average_watts"] = summarize(watts).median;
    if (!clocks.empty()) j["sm_clock_mhz"] = summarize(clocks).median;
    return j;
}

search::EvaluationOutcome outcome_from_report(const EvaluationReport& report) {
    search::EvaluationOutcome out;
    out.status = status_class_of(report.status);
    out.message = report.message;
    if (out.correct()) {
        out.median_seconds = report.candidate_median_seconds();
        out.speedup = report.speedup();
        if (report.timing.is_object() && report.timing.contains("fraction_of_floor") &&
            report.timing["fraction_of_floor"].is_number())
            out.roofline_fraction = std::min(1.0, report.timing["fraction_of_floor"].get<double>());
        if (report.timing.is_object() && report.timing.contains("roofline_floor"))
            out.roofline_class = report.timing["roofline_floor"].value("bound", std::string()) + "_bound";
    }
    // Cheap compiler facts, for the tuner: the worst entry function of the candidate.
    if (report.candidate_build && !report.candidate_build->ptxas_report.empty()) {
        auto parsed = profile::parse_ptxas_report(report.candidate_build->ptxas_report);
        if (parsed.ok()) {
            search::CompilerFacts facts;
            for (const auto& f : parsed->functions) {
                if (!f.entry) continue;
                facts.registers = std::max(facts.registers, f.registers);
                facts.spill_bytes = std::max(facts.spill_bytes, f.spill_store_bytes + f.spill_load_bytes);
                facts.shared_bytes = std::max(facts.shared_bytes, f.shared_bytes);
            }
            out.details["compiler"] = search::compiler_facts_to_json(facts);
        }
    }
    if (report.energy.is_object()) {
        if (out.correct() && report.candidate_joules_per_call()) {
            out.joules_per_call = report.candidate_joules_per_call();
            out.details["energy"] = energy_summary(report.energy);
        } else if (!report.energy.value("available", true)) {
            out.details["energy_error"] = report.energy.value("reason", std::string());
        }
    }
    out.details["evaluation_seconds"] = {{"compile", report.compile_seconds},
                                         {"verify", report.verify_seconds},
                                         {"time", report.time_seconds},
                                         {"total", report.total_seconds}};
    if (!report.warnings.empty()) out.details["warnings"] = report.warnings;
    // Which GPU ran it (a pool's slot; the worker's own name and UUID): results never depend on it
    // beyond this record.
    if (report.device.is_object() && !report.device.empty()) {
        nlohmann::json device = nlohmann::json::object();
        for (const char* key : {"name", "index", "uuid", "pci_bus_id"})
            if (report.device.contains(key)) device[key] = report.device[key];
        out.details["device"] = device;
    }
    return out;
}

GpuEvaluator::GpuEvaluator(TaskSpec task, kp::Evaluator& evaluator, EvaluationOptions options,
                           std::filesystem::path out_dir)
    : task_(std::move(task)), evaluator_(evaluator), options_(std::move(options)), out_dir_(std::move(out_dir)) {}

std::filesystem::path GpuEvaluator::source_path(const std::string& key) const {
    return out_dir_ / "candidates" / (key.substr(0, 16) + ".cu");
}

std::filesystem::path GpuEvaluator::report_path(const std::string& key) const {
    return out_dir_ / "evaluations" / (key.substr(0, 16) + ".json");
}

Result<search::EvaluationOutcome> GpuEvaluator::evaluate(const search::EvaluationRequest& request) {
    if (on_start_) on_start_(request);
    std::error_code ec;
    std::filesystem::create_directories(out_dir_ / "candidates", ec);
    std::filesystem::create_directories(out_dir_ / "evaluations", ec);
    auto source = source_path(request.evaluation_key);
    if (auto written = write_file_atomically(source, request.candidate.source); !written.ok()) return written.error();
    EvaluationOptions options = options_;
    options.candidate_parameters = request.candidate.params;
    auto report = evaluator_.evaluate(task_, source, options);
    if (!report.ok()) return report.error();
    nlohmann::json json = report->to_json();
    json["node_id"] = request.node_id;
    json["run_id"] = request.run_id;
    json["evaluation_key"] = request.evaluation_key;
    if (auto saved = write_file_atomically(report_path(request.evaluation_key), dump_json(json, 2) + "\n"); !saved.ok())
        return saved.error();
    auto outcome = outcome_from_report(*report);
    outcome.details["report_path"] = path_text(report_path(request.evaluation_key));  // --out may name any bytes
    if (report->timing.is_object() && report->timing.contains("roofline_floor"))
        outcome.details["roofline_model"] = roofline_model_json(task_, report->timing["roofline_floor"]);
    // What the candidate (or its writer) says it uses, against its SASS: profiled or not.
    std::optional<analysis::Finding> claim_finding;
    if (report->candidate_build && report->candidate_build->ok()) {
        auto claims = check_hardware_claims(request.candidate.source, request.rationale, report->candidate_build->library,
                                            report->candidate_build->key);
        if (!claims.claims.empty()) outcome.details["hardware_claims"] = claims.to_json();
        claim_finding = claims.finding();
    }
    if (profile_options_ && outcome.correct() && report->candidate_build) {
        // The main (longest) kernel's findings for the tuner; the LLM reads the call's feedback
        // (every kernel's share and the findings ranked on the whole call when it has several).
        // A tree's static signals (registers, local and shared memory) come from the counters reply.
        const fs::path reply = profile_tree_ ? out_dir_ / "evaluations" / (request.evaluation_key + ".counters.json") : fs::path();
        // With a pool the profile takes a slot too (pinned to its GPU), so it never disturbs a timing.
        Result<diagnose::ProfileReport> profiled = make_error("profile: not run");
        auto profile_on = [&](diagnose::ProfileOptions options) {
            options.counters_reply_file = reply;
            if (profile_tree_) autoprofiler::collect_by_tree(*profile_tree_, options, reply);
            profiled = diagnose::profile_candidate_report(task_, *report->candidate_build, options);
        };
        if (GpuPool* pool = evaluator_.gpu_pool()) {
            auto ran = pool->run(
                [&](int, const GpuSlot& device) {
                    diagnose::ProfileOptions options = *profile_options_;
                    if (!device.pin.empty()) options.environment["CUDA_VISIBLE_DEVICES"] = device.pin;
                    profile_on(options);
                    return SlotVerdict{};
                },
                /*evaluation=*/false);
            if (!ran.ok()) return ran.error();
        } else {
            profile_on(*profile_options_);
        }
        if (profiled.ok() && !profiled->kernels.empty()) {
            const analysis::Diagnosis& diagnosis = profiled->kernels.front().diagnosis;
            outcome.roofline_class = std::string(analysis::to_string(diagnosis.roofline.kind));
            outcome.findings = diagnosis.findings;
            outcome.findings_summary = diagnose::render_profile_feedback(*profiled);
            outcome.profiles["diagnosis"] = analysis::to_json(diagnosis);
            if (profile_tree_) apply_tree(*profile_tree_, *profiled, reply, outcome);
        } else {
            outcome.details["profile_error"] = !profiled.ok()                            ? profiled.error().message
                                               : !profiled->environment_error.empty() ? profiled->environment_error
                                                                                      : std::string("profile: no kernel was profiled");
        }
        if (std::error_code ignored; !reply.empty()) fs::remove(reply, ignored);
    }
    // Once: the profile's own tool already reports a claim its main kernel's SASS does not back.
    if (claim_finding && std::none_of(outcome.findings.begin(), outcome.findings.end(),
                                      [&](const analysis::Finding& f) { return f.tool == claim_finding->tool; })) {
        auto at = std::find_if(outcome.findings.begin(), outcome.findings.end(),
                               [&](const analysis::Finding& f) { return f.estimated_gain < claim_finding->estimated_gain; });
        outcome.findings.insert(at, *claim_finding);  // ranked by estimated gain, as a diagnosis ranks them
        outcome.findings_summary = analysis::render_finding_for_prompt(*claim_finding) + "\n" + outcome.findings_summary;
    }
    return outcome;
}

void GpuEvaluator::enable_profiling(diagnose::ProfileOptions options, std::optional<autoprofiler::TreeChoice> tree) {
    // With a tree, each evaluation's profile collects what its leaves take (collect_by_tree).
    profile_options_ = std::move(options);
    profile_tree_ = std::move(tree);
}

}  // namespace kp::optimize
