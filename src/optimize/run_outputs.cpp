#include "optimize/run_outputs.h"

#include <algorithm>
#include <sstream>
#include <system_error>

#include <fmt/format.h>

#include "common/files.h"
#include "common/utf8.h"
#include "search/proposers/parameter_space.h"

namespace kp::optimize {

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
        if (auto w = write_file_atomically(out_dir / "best.json", dump_json(json, 2) + "\n"); !w.ok()) return w.error();
    }

    std::ostringstream md;
    md << "# kernelpro optimize: " << task_name << "\n\n";
    md << "| | |\n|---|---|\n";
    md << "| run | " << outcome.run_id << " |\n";
    md << "| stop reason | " << outcome.stop_reason.name()
       << (outcome.stop_detail.empty() ? "" : " (" + outcome.stop_detail + ")") << " |\n";
    md << "| objective | " << search::describe_objective(outcome.objective) << " |\n";
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
        if (best.outcome->joules_per_call)
            md << fmt::format("| best energy | {:.4g} mJ per call ({:.3f}x less than the baseline) |\n", *best.outcome->joules_per_call * 1e3,
                              tree.node(0).outcome && tree.node(0).outcome->joules_per_call
                                  ? *tree.node(0).outcome->joules_per_call / *best.outcome->joules_per_call : 0.0);
        md << "| best parameters | " << (best.candidate.params.empty() ? "-" : search::point_text(best.candidate.params)) << " |\n";
    } else {
        md << "| result | no correct kernel found |\n";
    }
    md << "\n## Evaluated nodes (best first for the objective)\n\n| node | parent | origin | status | speedup vs baseline | mJ per call | % floor | parameters | rationale |\n|---|---|---|---|---|---|---|---|---|\n";
    std::vector<const search::TreeNode*> nodes;
    for (const auto& n : tree.nodes())
        if (n.evaluated()) nodes.push_back(&n);
    std::stable_sort(nodes.begin(), nodes.end(), [](const auto* a, const auto* b) {
        return a->gain > b->gain;
    });
    for (const auto* n : nodes) {
        std::string rationale = n->rationale;
        for (auto& c : rationale)
            if (c == '|' || c == '\n') c = ' ';
        md << fmt::format("| {} | {} | {} | {} | {:.3f}x | {} | {} | {} | {} |\n", n->id,
                          n->parent ? std::to_string(*n->parent) : "-", search::node_origin_name(n->origin),
                          search::status_class_name(n->outcome->status), n->speedup_over_baseline,
                          n->outcome->joules_per_call ? fmt::format("{:.4g}", *n->outcome->joules_per_call * 1e3) : "-",
                          n->outcome->roofline_fraction ? fmt::format("{:.1f}%", 100.0 * *n->outcome->roofline_fraction) : "-",
                          n->candidate.params.empty() ? "-" : search::point_text(n->candidate.params), rationale);
    }
    if (auto w = write_file_atomically(out_dir / "summary.md", md.str()); !w.ok()) return w.error();
    return found;
}

std::string format_progress(const search::SearchProgress& p) {
    std::string floor = p.best_roofline_fraction ? fmt::format("{:5.1f}%", 100.0 * *p.best_roofline_fraction) : "   n/a";
    std::string ref = p.best_speedup ? fmt::format("{:.2f}x", *p.best_speedup) : "n/a";
    return fmt::format("iter {:4d} | evals {:4d} | node {:4d} {:<14} | best {:.3f}x baseline, {} reference | {} of floor | {:7.1f} s",
                       p.iteration, p.spend.evaluations, p.node_id, search::status_class_name(p.status),
                       p.best_speedup_over_baseline, ref, floor, p.spend.elapsed_seconds);
}

}  // namespace kp::optimize
