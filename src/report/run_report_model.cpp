#include "report/run_report_model.h"

#include <fmt/format.h>

#include <map>

#include "report/source_diff.h"
#include "search/evaluation_outcome.h"
#include "search/objective.h"
#include "search/search_config.h"

namespace kp::report {

namespace {

using nlohmann::json;

json parse_or_empty(const std::string& text) {
    json parsed = json::parse(text, nullptr, false);
    return parsed.is_discarded() ? json::object() : parsed;
}

std::map<std::string, std::string> params_of(const store::NodeRecord& node) {
    std::map<std::string, std::string> params;
    json parsed = parse_or_empty(node.params_json);
    if (parsed.is_object())
        for (const auto& [k, v] : parsed.items()) params[k] = v.is_string() ? v.get<std::string>() : v.dump();
    return params;
}

// The findings to show: the profiler's diagnosis (with evidence) when the node was profiled, else
// the findings rows the search stored (tool, severity, message).
json findings_of(const json& diagnosis, const std::vector<store::FindingRecord>& rows) {
    if (diagnosis.is_object() && diagnosis.contains("findings") && !diagnosis["findings"].empty()) return diagnosis["findings"];
    json findings = json::array();
    for (const auto& f : rows) {
        json evidence = json::array();
        json data = parse_or_empty(f.data_json);
        if (data.is_object() && data.contains("evidence")) evidence = data["evidence"];
        findings.push_back({{"tool", f.tool}, {"estimated_gain", f.severity}, {"summary", f.message}, {"evidence", evidence}});
    }
    return findings;
}

// Where the kernel sits on the roofline: measured FLOPs and DRAM bytes when it was profiled, else
// the task's minimal FLOPs and bytes over its measured time (the point the floor is drawn from).
json roofline_point(const json& diagnosis, const json& model, double median_seconds) {
    if (diagnosis.is_object() && diagnosis.contains("roofline")) {
        const json& r = diagnosis["roofline"];
        double ai = r.value("arithmetic_intensity", 0.0), achieved = r.value("achieved_flops_per_s", 0.0);
        if (ai > 0 && achieved > 0) return {{"intensity", ai}, {"flops_per_s", achieved}, {"measured", true}};
    }
    if (!model.is_object() || median_seconds <= 0) return nullptr;
    double flops = model.value("flops", 0.0), bytes = model.value("bytes", 0.0);
    if (flops <= 0 || bytes <= 0) return nullptr;
    return {{"intensity", flops / bytes}, {"flops_per_s", flops / median_seconds}, {"measured", false}};
}

struct NodeInputs {
    const store::NodeRecord& node;
    const store::EvaluationRecord* evaluation;
    int evaluation_index;  // 1-based commit order, 0 when pending
    std::optional<double> baseline_median;
};

json node_json(store::RunStore& store, const NodeInputs& in, json& roofline_model) {
    json j = {{"id", in.node.node_id}, {"parent", in.node.parent_id ? json(*in.node.parent_id) : json(nullptr)},
              {"origin", in.node.proposal_kind}, {"params", params_of(in.node)}, {"rationale", in.node.rationale},
              {"close_reason", in.node.close_reason}, {"created_at", in.node.created_at},
              {"status", in.evaluation ? in.evaluation->status_class : "pending"}, {"evaluation", in.evaluation_index}};
    if (!in.evaluation) return j;
    const auto& e = *in.evaluation;
    json outcome = parse_or_empty(e.outcome_json);
    json details = outcome.value("details", json::object());
    if (roofline_model.is_null() && details.contains("roofline_model")) roofline_model = details["roofline_model"];
    j["reward"] = e.reward;
    j["message"] = outcome.value("message", "");
    j["roofline_class"] = outcome.value("roofline_class", "");
    if (e.median_seconds) j["median_s"] = *e.median_seconds;
    if (e.speedup) j["speedup_reference"] = *e.speedup;
    if (e.roofline_fraction) j["roofline_fraction"] = *e.roofline_fraction;
    if (e.median_seconds && in.baseline_median && *e.median_seconds > 0)
        j["speedup"] = *in.baseline_median / *e.median_seconds;
    if (details.contains("energy")) j["energy"] = details["energy"];
    if (details.contains("evaluation_seconds")) j["evaluation_seconds"] = details["evaluation_seconds"];
    json diagnosis;
    if (auto profiles = store.load_profiles(e.run_id, e.node_id); profiles.ok())
        for (const auto& p : *profiles)
            if (p.kind == "diagnosis") diagnosis = parse_or_empty(p.data_json);
    auto rows = store.load_findings(e.run_id, e.node_id);
    j["findings"] = findings_of(diagnosis, rows.ok() ? *rows : std::vector<store::FindingRecord>{});
    if (e.status_class == "ok" && e.median_seconds)
        j["roofline_point"] = roofline_point(diagnosis, details.value("roofline_model", roofline_model), *e.median_seconds);
    return j;
}

// The reply's code-search calls with their results ([] for none, or for a column that does not parse).
json tool_calls_json(const std::string& stored) {
    json calls = stored.empty() ? json::array() : json::parse(stored, nullptr, /*allow_exceptions=*/false);
    return calls.is_array() ? calls : json::array();
}

json llm_json(const std::vector<store::LlmExchangeRecord>& exchanges) {
    json list = json::array();
    for (const auto& x : exchanges)
        list.push_back({{"node", x.node_id ? json(*x.node_id) : json(nullptr)}, {"agent", x.agent}, {"model", x.model},
                        {"prompt", x.prompt}, {"reply", x.reply}, {"tokens_in", x.tokens_in}, {"tokens_out", x.tokens_out},
                        {"latency_s", x.latency_seconds}, {"cost_usd", x.cost_usd},
                        // The reply's code-search calls with their results ([] for none).
                        {"tool_calls", tool_calls_json(x.tool_calls)}});
    return list;
}

// Sums of the evaluators' own clocks: compile (CPU) and verify + time (the GPU's share).
json totals_json(const json& nodes, const store::LlmTotals& llm, double elapsed) {
    double compile = 0, gpu = 0, profile = 0;
    for (const auto& n : nodes) {
        if (!n.contains("evaluation_seconds")) continue;
        const json& s = n["evaluation_seconds"];
        compile += s.value("compile", 0.0);
        gpu += s.value("verify", 0.0) + s.value("time", 0.0);
        profile += s.value("profile", 0.0);
    }
    return {{"elapsed_s", elapsed}, {"compile_s", compile}, {"gpu_s", gpu}, {"profile_s", profile},
            {"llm_exchanges", llm.exchanges}, {"tokens_in", llm.tokens_in}, {"tokens_out", llm.tokens_out},
            {"cost_usd", llm.cost_usd}};
}

// The best node by the run's objective, by the search's own rule (search/objective.h).
std::optional<size_t> best_index(const std::vector<store::NodeRecord>& nodes,
                                 const std::map<std::int64_t, std::pair<const store::EvaluationRecord*, int>>& by_node,
                                 const std::string& config_json) {
    auto config = search::config_from_json(parse_or_empty(config_json));
    const search::ObjectiveRule rule = config.ok() ? config->objective : search::ObjectiveRule{};
    auto outcome_of = [&](std::int64_t id) -> std::optional<search::EvaluationOutcome> {
        auto it = by_node.find(id);
        if (it == by_node.end()) return std::nullopt;
        auto outcome = search::outcome_from_json(it->second.first->outcome_json);
        return outcome.ok() ? std::optional(*outcome) : std::nullopt;
    };
    const auto baseline = outcome_of(0);
    std::vector<size_t> indices;
    std::vector<search::RankedKernel> kernels;
    for (size_t i = 0; i < nodes.size(); ++i) {
        auto outcome = outcome_of(nodes[i].node_id);
        if (!outcome || !outcome->correct() || !outcome->median_seconds || !baseline || !baseline->median_seconds) continue;
        const double speedup = *baseline->median_seconds / *outcome->median_seconds;
        indices.push_back(i);
        kernels.push_back({speedup, search::objective_gain(rule, *outcome, &*baseline, speedup), outcome->joules_per_call.has_value()});
    }
    auto best = search::best_kernel(rule, kernels);
    return best ? std::optional(indices[*best]) : std::nullopt;
}

}  // namespace

std::string source_with_parameters(const std::string& source, const std::map<std::string, std::string>& params) {
    std::string text;
    for (const auto& [k, v] : params) text += fmt::format("#define {} {}\n", k, v);
    return text + source;
}

Result<json> run_report_model(store::RunStore& store, std::int64_t run_id) {
    auto run = store.load_run(run_id);
    if (!run.ok()) return run.error();
    auto nodes = store.load_nodes(run_id);
    if (!nodes.ok()) return nodes.error();
    auto evaluations = store.load_evaluations(run_id);
    if (!evaluations.ok()) return evaluations.error();
    auto exchanges = store.load_llm_exchanges(run_id);
    if (!exchanges.ok()) return exchanges.error();
    auto llm = store.llm_totals(run_id);
    if (!llm.ok()) return llm.error();

    std::map<std::int64_t, std::pair<const store::EvaluationRecord*, int>> by_node;
    for (size_t i = 0; i < evaluations->size(); ++i) by_node[(*evaluations)[i].node_id] = {&(*evaluations)[i], static_cast<int>(i + 1)};
    std::optional<double> baseline_median;
    if (auto it = by_node.find(0); it != by_node.end()) baseline_median = it->second.first->median_seconds;

    json roofline_model;
    json node_list = json::array();
    for (const auto& node : *nodes) {
        auto it = by_node.find(node.node_id);
        NodeInputs in{node, it == by_node.end() ? nullptr : it->second.first, it == by_node.end() ? 0 : it->second.second,
                      baseline_median};
        node_list.push_back(node_json(store, in, roofline_model));
    }
    json model = {{"kind", "run"},
                  {"run", {{"id", run->id}, {"task", run->task_name}, {"status", store::run_status_name(run->status)},
                           {"stop_reason", run->stop_reason}, {"created_at", run->created_at},
                           {"updated_at", run->updated_at}, {"config", parse_or_empty(run->config_json)}}},
                  {"nodes", node_list}, {"roofline", roofline_model},
                  {"llm", llm_json(*exchanges)}, {"totals", totals_json(node_list, *llm, run->elapsed_seconds)}};
    if (auto best = best_index(*nodes, by_node, run->config_json)) {
        const auto& best_node = (*nodes)[*best];
        const auto& start = nodes->front();
        model["best"] = {{"node", best_node.node_id},
                         {"diff", to_json(diff_lines(source_with_parameters(start.source, params_of(start)),
                                                     source_with_parameters(best_node.source, params_of(best_node))))}};
    }
    return model;
}

}  // namespace kp::report
