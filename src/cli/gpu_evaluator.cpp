#include "cli/gpu_evaluator.h"

#include "analysis/feedback.h"

#include <algorithm>
#include <system_error>

#include "common/files.h"
#include "profile/ptxas_report.h"
#include "search/proposers/tuner_proposer.h"

namespace kp::cli {

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
    }
    return StatusClass::crash;
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
    out.details["evaluation_seconds"] = {{"compile", report.compile_seconds},
                                         {"verify", report.verify_seconds},
                                         {"time", report.time_seconds},
                                         {"total", report.total_seconds}};
    if (!report.warnings.empty()) out.details["warnings"] = report.warnings;
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
    if (auto saved = write_file_atomically(report_path(request.evaluation_key), json.dump(2) + "\n"); !saved.ok())
        return saved.error();
    auto outcome = outcome_from_report(*report);
    outcome.details["report_path"] = report_path(request.evaluation_key).string();
    if (profile_options_ && outcome.correct() && report->candidate_build) {
        auto diagnosis = profile_candidate(task_, *report->candidate_build, *profile_options_);
        if (diagnosis.ok()) {
            outcome.roofline_class = std::string(analysis::to_string(diagnosis->roofline.kind));
            for (const auto& f : diagnosis->findings)
                outcome.findings.push_back({f.tool, f.estimated_gain, f.summary + " " + f.guidance, nlohmann::json::object()});
            outcome.findings_summary = analysis::render_llm_feedback(*diagnosis);
            outcome.profiles["diagnosis"] = analysis::to_json(*diagnosis);
        } else {
            outcome.details["profile_error"] = diagnosis.error().message;
        }
    }
    return outcome;
}

}  // namespace kp::cli

// ---- shared by optimize and runs resume ----
#include <fmt/format.h>

#include <sstream>

#include "common/hash.h"
#include "search/proposers/parameter_space.h"

namespace kp::cli {

std::string task_fingerprint(const TaskSpec& task) {
    Sha256 hash;
    auto toml = read_text_file(task.toml_path);
    hash.add(toml.ok() ? *toml : task.name);
    if (task.reference.source) {
        auto reference = read_text_file(*task.reference.source);
        hash.add(reference.ok() ? *reference : task.reference.source->string());
    }
    return hash.hex();
}

EvaluationOptions search_evaluation_options(int trials, double max_seconds, double min_seconds) {
    EvaluationOptions options;
    options.trials = trials;
    options.timing.stopping.max_seconds = max_seconds;
    options.timing.stopping.min_seconds = min_seconds;
    return options;
}

std::string format_progress(const search::SearchProgress& p) {
    std::string floor = p.best_roofline_fraction ? fmt::format("{:5.1f}%", 100.0 * *p.best_roofline_fraction) : "   n/a";
    std::string ref = p.best_speedup ? fmt::format("{:.2f}x", *p.best_speedup) : "n/a";
    return fmt::format("iter {:4d} | evals {:4d} | node {:4d} {:<14} | best {:.3f}x baseline, {} reference | {} of floor | {:7.1f} s",
                       p.iteration, p.spend.evaluations, p.node_id, search::status_class_name(p.status),
                       p.best_speedup_over_baseline, ref, floor, p.spend.elapsed_seconds);
}

Result<bool> write_run_outputs(const search::SearchDriver& driver, const search::SearchOutcome& outcome,
                               const GpuEvaluator& evaluator, const std::string& task_name,
                               const std::filesystem::path& out_dir) {
    std::error_code ec;
    std::filesystem::create_directories(out_dir, ec);
    const auto& tree = driver.tree();
    bool found = outcome.best_node_id && tree.node(*outcome.best_node_id).correct();
    if (found) {
        const auto& best = tree.node(*outcome.best_node_id);
        std::string header = fmt::format("// kernelpro optimize: best kernel of run {} for task {} (node {}, {:.3f}x over the baseline)\n",
                                         outcome.run_id, task_name, best.id, best.speedup_over_baseline);
        if (!best.candidate.params.empty()) {
            header += "// Tunable parameters baked in:\n";
            for (const auto& [k, v] : best.candidate.params) header += fmt::format("#define {} {}\n", k, v);
        }
        if (auto w = write_file_atomically(out_dir / "best.cu", header + best.candidate.source); !w.ok()) return w.error();
        nlohmann::json json;
        auto report = read_text_file(evaluator.report_path(best.evaluation_key));
        if (report.ok()) json = nlohmann::json::parse(*report, nullptr, false);
        if (json.is_discarded() || !json.is_object()) json = search::outcome_to_json(*best.outcome);
        json["parameters"] = search::params_to_json(best.candidate.params);
        json["speedup_over_baseline"] = best.speedup_over_baseline;
        json["run_id"] = outcome.run_id;
        json["node_id"] = best.id;
        if (auto w = write_file_atomically(out_dir / "best.json", json.dump(2) + "\n"); !w.ok()) return w.error();
    }

    std::ostringstream md;
    md << "# kernelpro optimize: " << task_name << "\n\n";
    md << "| | |\n|---|---|\n";
    md << "| run | " << outcome.run_id << " |\n";
    md << "| stop reason | " << search::stop_reason_name(outcome.stop_reason)
       << (outcome.stop_detail.empty() ? "" : " (" + outcome.stop_detail + ")") << " |\n";
    md << "| evaluations | " << outcome.spend.evaluations << " |\n";
    md << "| nodes | " << outcome.nodes << " |\n";
    md << fmt::format("| elapsed | {:.1f} s |\n", outcome.spend.elapsed_seconds);
    if (!tree.empty() && tree.node(0).outcome && tree.node(0).outcome->median_seconds)
        md << fmt::format("| baseline median | {:.2f} us |\n", *tree.node(0).outcome->median_seconds * 1e6);
    if (found) {
        const auto& best = tree.node(*outcome.best_node_id);
        md << fmt::format("| best node | {} |\n", best.id);
        md << fmt::format("| best speedup over baseline | {:.3f}x |\n", best.speedup_over_baseline);
        if (outcome.best_speedup) md << fmt::format("| best speedup over reference | {:.3f}x |\n", *outcome.best_speedup);
        if (best.outcome->median_seconds) md << fmt::format("| best median | {:.2f} us |\n", *best.outcome->median_seconds * 1e6);
        if (best.outcome->roofline_fraction)
            md << fmt::format("| best % of roofline floor | {:.1f}% |\n", 100.0 * *best.outcome->roofline_fraction);
        md << "| best parameters | " << (best.candidate.params.empty() ? "-" : search::point_text(best.candidate.params)) << " |\n";
    } else {
        md << "| result | no correct kernel found |\n";
    }
    md << "\n## Evaluated nodes (fastest first)\n\n| node | parent | origin | status | speedup vs baseline | % floor | parameters | rationale |\n|---|---|---|---|---|---|---|---|\n";
    std::vector<const search::TreeNode*> nodes;
    for (const auto& n : tree.nodes())
        if (n.evaluated()) nodes.push_back(&n);
    std::stable_sort(nodes.begin(), nodes.end(), [](const auto* a, const auto* b) {
        return a->speedup_over_baseline > b->speedup_over_baseline;
    });
    for (const auto* n : nodes) {
        std::string rationale = n->rationale;
        for (auto& c : rationale)
            if (c == '|' || c == '\n') c = ' ';
        md << fmt::format("| {} | {} | {} | {} | {:.3f}x | {} | {} | {} |\n", n->id,
                          n->parent ? std::to_string(*n->parent) : "-", search::node_origin_name(n->origin),
                          search::status_class_name(n->outcome->status), n->speedup_over_baseline,
                          n->outcome->roofline_fraction ? fmt::format("{:.1f}%", 100.0 * *n->outcome->roofline_fraction) : "-",
                          n->candidate.params.empty() ? "-" : search::point_text(n->candidate.params), rationale);
    }
    if (auto w = write_file_atomically(out_dir / "summary.md", md.str()); !w.ok()) return w.error();
    return found;
}

}  // namespace kp::cli
