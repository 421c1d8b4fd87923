#include "autoprofiler/tuning_record.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "build/candidate_builder.h"
#include "build/tunables.h"
#include "search/proposers/parameter_space.h"
#include "task/task_spec.h"

namespace kp::autoprofiler {

namespace fs = std::filesystem;

Result<std::map<std::string, search::EvaluationOutcome>> load_run_table(const fs::path& run_json) {
    std::ifstream in(run_json);
    if (!in) return make_error(run_json.string() + ": cannot read");
    const nlohmann::json run = nlohmann::json::parse(in, nullptr, false);
    if (run.is_discarded() || !run.is_object() || run.value("schema", "") != "kernelpro.run/1" || !run.contains("nodes") ||
        !run["nodes"].is_array())
        return make_error(run_json.string() + ": not a run (kernelpro runs show ID --json, schema kernelpro.run/1)");
    std::map<std::string, search::EvaluationOutcome> table;
    for (const auto& node : run["nodes"]) {
        if (!node.is_object() || !node.contains("params") || !node["params"].is_object() || !node.contains("outcome") ||
            !node["outcome"].is_object())
            continue;  // a pending node: not evaluated
        search::ParameterValues point;
        for (const auto& [k, v] : node["params"].items())
            if (v.is_string()) point[k] = v.get<std::string>();
        auto outcome = search::outcome_from_json(node["outcome"].dump());
        if (!outcome) return make_error(fmt::format("{}: node {}: {}", run_json.string(), node.value("node", -1), outcome.error().message));
        table.emplace(search::point_text(point), std::move(*outcome));
    }
    if (table.empty()) return make_error(run_json.string() + ": no evaluated node");
    return table;
}

Result<std::vector<KernelRecord>> load_tuning_records(const fs::path& manifest_path, const std::vector<std::string>& only) {
    auto parsed = read_manifest(manifest_path);
    if (!parsed) return parsed.error();
    toml::table& manifest = *parsed;
    const fs::path here = manifest_path.parent_path();
    const fs::path root = here / manifest["root"].value_or(std::string("."));
    const fs::path ceilings = here / manifest["ceilings"].value_or(std::string("ceilings.json"));
    auto* kernels = manifest["kernel"].as_array();
    if (!kernels) return make_error(manifest_path.string() + ": no [[kernel]] entries");
    BuilderOptions build_options;
    build_options.arch = detect_gpu_arch();
    CandidateBuilder builder(build_options);
    std::vector<KernelRecord> out;
    for (auto& node : *kernels) {
        auto* k = node.as_table();
        const auto line = node.source().begin.line;
        auto where = [&](const std::string& what) { return make_error(fmt::format("{}:{}: {}", manifest_path.string(), line, what)); };
        if (!k) return where("a [[kernel]] entry must be a table");
        const std::string name = (*k)["name"].value_or(std::string());
        if (name.empty()) return where("a kernel needs a name");
        if (!only.empty() && std::find(only.begin(), only.end(), name) == only.end()) continue;
        for (const char* key : {"task", "candidate", "start", "table", "counters"})
            if (!(*k)[key].is_string()) return where(fmt::format("kernel {}: `{}` (a string) is missing", name, key));
        auto task = load_task(root / *(*k)["task"].value<std::string>());
        if (!task) return where(fmt::format("kernel {}: {}", name, task.error().message));
        const fs::path candidate = root / *(*k)["candidate"].value<std::string>();
        std::ifstream source_in(candidate);
        if (!source_in) return where(fmt::format("kernel {}: cannot read {}", name, candidate.string()));
        std::stringstream source;
        source << source_in.rdbuf();

        auto table = std::make_shared<TuningTable>();
        table->task = task->name;
        table->task_dir = root / *(*k)["task"].value<std::string>();
        table->source = source.str();
        auto space = parse_tunables(table->source);
        if (!space || space->parameters.empty()) return where(fmt::format("kernel {}: {} declares no kp:tune parameter", name, candidate.string()));
        std::stringstream start(*(*k)["start"].value<std::string>());
        search::ParameterValues given;
        for (std::string item; std::getline(start, item, ',');) {
            const auto eq = item.find('=');
            if (eq == std::string::npos) return where(fmt::format("kernel {}: start `{}` is not NAME=VALUE,...", name, item));
            given[item.substr(0, eq)] = item.substr(eq + 1);
        }
        table->start = search::resolve_point(table->source, *space, given);
        auto by_point = load_run_table(here / *(*k)["table"].value<std::string>());
        if (!by_point) return where(fmt::format("kernel {}: {}", name, by_point.error().message));
        table->by_point = std::move(*by_point);
        const auto start_entry = table->by_point.find(search::point_text(table->start));
        if (start_entry == table->by_point.end() || !start_entry->second.correct() || !start_entry->second.median_seconds)
            return where(fmt::format("kernel {}: the table has no correct timing of the start point {}", name, search::point_text(table->start)));

        auto record = replay_recorded_kernel(*task, builder, candidate, table->start, here / *(*k)["counters"].value<std::string>(), ceilings);
        if (!record) return where(fmt::format("kernel {}: {}", name, record.error().message));
        record->name = name;
        record->expect = "";  // unlabelled: scored by what the tuner makes of the feedback
        record->tuning = std::move(table);
        out.push_back(std::move(*record));
    }
    return out;
}

}  // namespace kp::autoprofiler
