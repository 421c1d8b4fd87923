#include "autoprofiler/kernel_record.h"

#include <algorithm>
#include <fstream>

#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "analysis/tool_registry.h"
#include "build/candidate_builder.h"
#include "common/files.h"
#include "llm/toml_document.h"
#include "diagnose/profile_candidate.h"
#include "task/task_spec.h"

namespace kp::autoprofiler {

namespace {

using Signals = std::map<std::string, double>;

void add_sass_signals(const profile::SassSummary& sass, Signals& s) {
    s["sass.tensor_instructions"] = sass.tensor_instructions;
    s["sass.fp64_instructions"] = sass.fp64_instructions();
    s["sass.atomics"] = sass.atomics;
    s["sass.barriers"] = sass.barriers;
    const int global = sass.global_loads.total() + sass.global_stores.total();
    const int narrow = sass.global_loads.narrow + sass.global_loads.bits32 + sass.global_stores.narrow + sass.global_stores.bits32;
    s["sass.narrow_global_share"] = global > 0 ? static_cast<double>(narrow) / global : 0.0;
}

void add_task_signals(const analysis::TaskBounds& task, Signals& s) {
    if (task.min_bytes && *task.min_bytes > 0) {
        s["task.min_bytes"] = *task.min_bytes;
        if (task.min_flops) s["task.arithmetic_intensity"] = *task.min_flops / *task.min_bytes;
    }
    using gpu::FlopPrecision;
    s["task.low_precision"] = task.precision == FlopPrecision::fp16 || task.precision == FlopPrecision::bf16_tensor ||
                              task.precision == FlopPrecision::fp16_tensor || task.precision == FlopPrecision::fp8_tensor;
}

// The kernel's function attributes and launch configuration, from the worker's counters reply:
// its first launch there (a call may launch several kernels), else the call's first launch. A
// reply that is not what a worker writes (a hand-edited --ncu-csv file) leaves them unknown.
void add_launch_signals(const std::string& kernel_name, const std::filesystem::path& reply_path, Signals& s) {
    std::ifstream in(reply_path);
    const nlohmann::json reply = nlohmann::json::parse(in, nullptr, false);
    if (reply.is_discarded() || !reply.is_object() || !reply.contains("launches")) return;
    const nlohmann::json& launches = reply["launches"];
    if (!launches.is_array() || launches.empty()) return;
    const nlohmann::json* found = &launches[0];
    for (const auto& launch : launches)
        if (launch.is_object() && launch.contains("name") && launch["name"].is_string() && launch["name"].get<std::string>() == kernel_name) {
            found = &launch;
            break;
        }
    const auto& l = *found;
    if (!l.is_object()) return;
    auto number = [](const nlohmann::json& v) { return v.is_number() ? v.get<double>() : 0.0; };
    auto field = [&](const char* key) { return l.contains(key) ? number(l[key]) : 0.0; };
    auto product = [&](const nlohmann::json& dims) {
        double p = 1;
        if (dims.is_array())
            for (const auto& v : dims) p *= number(v);
        return p;
    };
    s["static.registers"] = field("registers");
    s["static.local_bytes"] = field("local_bytes");
    s["static.shared_bytes"] = field("static_shared_bytes") + field("dynamic_shared_bytes");
    if (l.contains("block")) s["static.threads_per_block"] = product(l["block"]);
    if (l.contains("grid")) s["static.blocks"] = product(l["grid"]);
}

void add_roofline_signals(const analysis::RooflineResult& r, Signals& s) {
    s["roofline.memory_bound"] = r.kind == analysis::RooflineClass::memory_bound;
    s["roofline.compute_bound"] = r.kind == analysis::RooflineClass::compute_bound;
    s["roofline.latency_bound"] = r.kind == analysis::RooflineClass::latency_bound;
    s["roofline.sol_memory"] = r.memory_sol;
    s["roofline.sol_compute"] = r.compute_sol;
    s["roofline.sol_dram"] = r.dram_sol;
    s["roofline.arithmetic_intensity"] = r.arithmetic_intensity;
    if (r.waves) s["roofline.waves"] = *r.waves;
}

}  // namespace

std::map<std::string, double> signals_of(const diagnose::KernelDiagnosis& kernel, const std::filesystem::path& reply_path) {
    Signals s;
    if (kernel.sass) add_sass_signals(*kernel.sass, s);
    add_task_signals(kernel.task, s);
    add_launch_signals(kernel.diagnosis.kernel_name, reply_path, s);
    if (kernel.roofline_known) add_roofline_signals(kernel.diagnosis.roofline, s);
    return s;
}

KernelRecord record_of(const diagnose::KernelDiagnosis& kernel, const std::filesystem::path& counters_reply) {
    KernelRecord record;
    record.name = kernel.diagnosis.kernel_name;
    record.diagnosis = kernel.diagnosis;
    record.signals = signals_of(kernel, counters_reply);
    return record;
}

Result<KernelRecord> replay_recorded_kernel(const TaskSpec& task, CandidateBuilder& builder, const std::filesystem::path& source,
                                            const std::map<std::string, std::string>& parameters,
                                            const std::filesystem::path& counters_reply, const std::filesystem::path& ceilings) {
    const std::string file = source.filename().string();
    if (!std::filesystem::exists(counters_reply)) return make_error(counters_reply.string() + ": no recorded counters for " + file);
    auto build = builder.build(task_build_request(task, source, parameters));
    if (!build || !build->ok()) return make_error(file + ": " + (build ? build->message : build.error().message));
    diagnose::ProfileOptions p;
    p.ncu_csv = counters_reply;
    p.ceilings_file = ceilings;
    p.tools = analysis::default_tool_registry().names();
    p.use_cache = false;
    p.source_name = source.string();
    auto report = diagnose::profile_candidate_report(task, *build, p);
    if (!report) return make_error(file + ": " + report.error().message);
    if (report->kernels.empty()) return make_error(file + ": the profile found no kernel");
    const auto& kd = report->kernels.front();
    KernelRecord record;
    record.diagnosis = kd.diagnosis;
    record.signals = signals_of(kd, counters_reply);
    return record;
}

Result<toml::table> read_manifest(const std::filesystem::path& path) {
    auto text = read_text_file(path);
    if (!text) return text.error();
    return llm::parse_toml_document(*text, path.string());
}

Result<std::vector<KernelRecord>> load_corpus_records(const CorpusOptions& options) {
    const auto manifest_path = options.corpus / "manifest.toml";
    auto parsed = read_manifest(manifest_path);
    if (!parsed) return parsed.error();
    toml::table& manifest = *parsed;
    auto task = load_task(options.corpus / manifest["task"].value_or(std::string("task")));
    if (!task) return task.error();
    BuilderOptions build_options;
    build_options.arch = detect_gpu_arch();
    CandidateBuilder builder(build_options);
    std::vector<KernelRecord> out;
    auto* kernels = manifest["kernel"].as_array();
    if (!kernels) return make_error(manifest_path.string() + ": no [[kernel]] entries");
    for (auto& node : *kernels) {
        auto& k = *node.as_table();
        KernelRecord record;
        const std::string file = k["file"].value_or(std::string());
        record.name = std::filesystem::path(file).stem().string();
        if (!options.only.empty() && std::find(options.only.begin(), options.only.end(), record.name) == options.only.end()) continue;
        record.expect = k["expect"].value_or(std::string("none"));
        record.max_gain = k["max_gain"].value_or(0.15);
        if (auto* lines = k["lines"].as_array())
            for (auto& line : *lines)
                if (auto n = line.value<int64_t>()) record.lines.push_back(static_cast<int>(*n));
        const auto reply = options.recordings / (record.name + ".counters.json");
        auto replayed = replay_recorded_kernel(*task, builder, options.corpus / file, {}, reply, options.recordings / "ceilings.json");
        if (!replayed) return replayed.error();
        record.diagnosis = std::move(replayed->diagnosis);
        record.signals = std::move(replayed->signals);
        out.push_back(std::move(record));
    }
    return out;
}

void split_records(const std::vector<KernelRecord>& all, int every, std::vector<KernelRecord>& train, std::vector<KernelRecord>& held_out) {
    train.clear();
    held_out.clear();
    for (size_t i = 0; i < all.size(); ++i) ((every > 0 && i % static_cast<size_t>(every) == static_cast<size_t>(every) - 1) ? held_out : train).push_back(all[i]);
}

}  // namespace kp::autoprofiler
