#include "autoprofiler/catalogue.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "analysis/roofline.h"
#include "analysis/tool_registry.h"
#include "autoprofiler/profile_cost.h"
#include "profile/cupti_counter_collector.h"
#include "profile/ncu_collector.h"

namespace kp::autoprofiler {

const std::vector<SignalInfo>& signal_catalogue() {
    static const std::vector<SignalInfo> signals = {
        {"static.registers", "", "registers per thread (ptxas / the launch's function attributes)", {"register_spills", "occupancy_limit"}},
        {"static.local_bytes", "", "local memory per thread, bytes (spills and stack)", {"register_spills"}},
        {"static.shared_bytes", "", "shared memory per block, static + dynamic, bytes",
         {"shared_bank_conflicts", "occupancy_limit", "barrier_stalls"}},
        {"static.threads_per_block", "", "threads per block of the launch", {"occupancy_limit", "small_grid_tail"}},
        {"static.blocks", "", "blocks in the grid", {"small_grid_tail", "launch_overhead"}},
        {"sass.tensor_instructions", "", "tensor-core instructions in the kernel's SASS (HMMA, HGMMA, IMMA, ...)",
         {"matmul_without_tensor_cores", "unbacked_hardware_claim"}},
        {"sass.fp64_instructions", "", "FP64 math instructions in the SASS (DFMA, DADD, DMUL)", {"fp64_or_unfused_math"}},
        {"sass.atomics", "", "atomic and reduction instructions in the SASS (ATOM, ATOMG, ATOMS, RED)", {"atomic_contention"}},
        {"sass.barriers", "", "barrier instructions in the SASS (BAR.*)", {"barrier_stalls", "shared_bank_conflicts"}},
        {"sass.narrow_global_share", "", "share of global loads and stores that move 32 bits or less per thread (0..1)",
         {"narrow_global_access", "uncoalesced_global_access"}},
        {"task.arithmetic_intensity", "", "the task's minimal FLOP per byte (task.toml's cost)",
         {"matmul_without_tensor_cores", "math_pipe_saturation", "missing_data_reuse"}},
        {"task.min_bytes", "", "the task's minimal bytes moved (task.toml's cost)", {"dram_traffic_excess", "l2_locality"}},
        {"task.low_precision", "", "1 when the task's math is 16-bit or narrower (fp16, bf16, fp8), else 0", {"matmul_without_tensor_cores"}},
        {"roofline.memory_bound", kRooflineAction, "1 when the roofline class is memory-bound, else 0",
         {"narrow_global_access", "uncoalesced_global_access", "dram_traffic_excess", "l2_locality", "missing_data_reuse"}},
        {"roofline.compute_bound", kRooflineAction, "1 when the roofline class is compute-bound, else 0",
         {"math_pipe_saturation", "fp64_or_unfused_math", "matmul_without_tensor_cores"}},
        {"roofline.latency_bound", kRooflineAction, "1 when the roofline class is latency-bound, else 0",
         {"long_scoreboard_latency", "small_grid_tail", "occupancy_limit", "warp_divergence", "atomic_contention"}},
        {"roofline.sol_memory", kRooflineAction, "the busiest memory level's share of its peak (0..1)",
         {"dram_traffic_excess", "l2_locality", "missing_data_reuse"}},
        {"roofline.sol_compute", kRooflineAction, "the busiest math pipe's share of its peak (0..1)", {"math_pipe_saturation"}},
        {"roofline.sol_dram", kRooflineAction, "DRAM bandwidth's share of its peak (0..1)", {"dram_traffic_excess"}},
        {"roofline.arithmetic_intensity", kRooflineAction, "FLOP per DRAM byte", {"matmul_without_tensor_cores", "missing_data_reuse"}},
        {"roofline.waves", kRooflineAction, "waves of blocks per SM", {"small_grid_tail"}},
    };
    return signals;
}

const SignalInfo* find_signal(const std::string& name) {
    for (const auto& s : signal_catalogue())
        if (s.name == name) return &s;
    return nullptr;
}

std::vector<std::string> action_catalogue() {
    std::vector<std::string> out{kRooflineAction, kLinesAction};
    for (const auto* tool : analysis::default_tool_registry().all()) out.push_back("tool:" + std::string(tool->name()));
    return out;
}

bool is_known_action(const std::string& action) {
    auto all = action_catalogue();
    return std::find(all.begin(), all.end(), action) != all.end();
}

std::string tool_of_action(const std::string& action) { return action.rfind("tool:", 0) == 0 ? action.substr(5) : std::string(); }

std::vector<std::string> tools_of_actions(const std::vector<std::string>& actions) {
    std::vector<std::string> tools;
    for (const auto& action : actions)
        if (auto tool = tool_of_action(action); !tool.empty()) tools.push_back(std::move(tool));
    return tools;
}

namespace {

// What an action asks of a live profile, built once: the walk asks for every action it tries, on
// every kernel of every proposal.
struct ActionNeeds {
    std::vector<std::string> counters;  // the counted metrics
    bool timeline = false;              // reads the call's trace
    bool run = false;                   // reads what only a run records (reads_the_run)
};

const ActionNeeds* needs_of(const std::string& action) {
    static const std::map<std::string, ActionNeeds> needs = [] {
        std::map<std::string, ActionNeeds> out{{kRooflineAction, {profile::counted_metrics(analysis::roofline_metric_names()), false, false}}};
        for (const auto* tool : analysis::default_tool_registry().all()) {
            const analysis::DataNeeds n = tool->needs();
            // Launch facts (launch__*: grid, block, registers, occupancy limits) are free in ncu's
            // terms, but only the counters run records them; without a run a tool sees the SASS
            // and ptxas only.
            out["tool:" + std::string(tool->name())] = {profile::counted_metrics(n.metrics), n.timeline,
                                                       !n.metrics.empty() || n.occupancy || n.timeline};
        }
        return out;
    }();
    auto it = needs.find(action);
    return it == needs.end() ? nullptr : &it->second;
}

}  // namespace

const std::vector<std::string>& counters_of_action(const std::string& action) {
    static const std::vector<std::string> none;
    const auto* n = needs_of(action);
    return n ? n->counters : none;
}

bool reads_the_timeline(const std::string& action) {
    const auto* n = needs_of(action);
    return n && n->timeline;
}

bool reads_the_run(const std::string& action) {
    const auto* n = needs_of(action);
    return n && n->run;
}

bool runs_in_collection(const std::string& action, const ActionCost& cost) {
    // The call's trace, too, is taken in the counters run.
    return cost.passes > 0 || action == kLinesAction || !counters_of_action(action).empty() || reads_the_run(action);
}

const ActionCost& CostTable::of(const std::string& action) const {
    static const ActionCost none;
    auto it = actions.find(action);
    return it == actions.end() ? none : it->second;
}

Result<CostTable> load_cost_table(const std::filesystem::path& path) {
    toml::table doc;
    try {
        doc = toml::parse_file(path.string());
    } catch (const toml::parse_error& e) {
        return make_error(fmt::format("{}:{}: {}", path.string(), e.source().begin.line, e.description()));
    }
    CostTable table;
    table.gpu = doc["gpu"].value_or(std::string());
    table.source = doc["source"].value_or(std::string());
    table.chip = doc["chip"].value_or(std::string());
    table.process_seconds = doc["process_seconds"].value_or(0.0);
    table.collection_seconds = doc["collection_seconds"].value_or(0.0);
    table.seconds_per_pass = doc["seconds_per_pass"].value_or(-1.0);
    if (table.gpu.empty()) return make_error(path.string() + ":1: `gpu` (the GPU these costs were measured on) is missing");
    if (table.process_seconds < 0 || table.collection_seconds < 0)
        return make_error(path.string() + ": process_seconds and collection_seconds must be >= 0");
    if (auto* actions = doc["action"].as_table()) {
        for (auto& [key, node] : *actions) {
            const std::string name(key.str());
            const int line = static_cast<int>(node.source().begin.line);
            if (!is_known_action(name)) return make_error(fmt::format("{}:{}: unknown action '{}'", path.string(), line, name));
            auto* t = node.as_table();
            if (!t) return make_error(fmt::format("{}:{}: action '{}' must be a table {{seconds, passes}}", path.string(), line, name));
            ActionCost cost{(*t)["seconds"].value_or(-1.0), static_cast<int>((*t)["passes"].value_or(int64_t{-1}))};
            if (cost.seconds < 0 || cost.passes < 0)
                return make_error(fmt::format("{}:{}: action '{}' needs seconds >= 0 and passes >= 0", path.string(), line, name));
            table.actions[name] = cost;
        }
    }
    for (const auto& a : action_catalogue())
        if (!table.actions.count(a)) return make_error(fmt::format("{}: no cost for action '{}'", path.string(), a));
    // A table from before 2026-12-07 gives no seconds per pass: the roofline's seconds over its passes.
    if (table.seconds_per_pass < 0) {
        const auto& roofline = table.of(kRooflineAction);
        table.seconds_per_pass = roofline.passes > 0 ? roofline.seconds / roofline.passes : 0;
    }
    return table;
}

std::string to_toml(const CostTable& table) {
    std::ostringstream out;
    out << "# Profiling cost per action on one GPU (docs/autoprofiler.md). Re-seed with\n"
        << "# `kernelpro autoprofile costs --recordings DIR --gpu NAME`.\n";
    out << fmt::format("gpu = \"{}\"\nsource = \"{}\"\n", table.gpu, table.source);
    if (!table.chip.empty()) out << fmt::format("chip = \"{}\"\n", table.chip);
    out << fmt::format("process_seconds = {:.4f}\ncollection_seconds = {:.4f}\nseconds_per_pass = {:.4f}\n", table.process_seconds,
                       table.collection_seconds, table.seconds_per_pass);
    for (const auto& a : action_catalogue()) {
        const auto& c = table.of(a);
        out << fmt::format("\n[action.\"{}\"]\nseconds = {:.4f}\npasses = {}\n", a, c.seconds, c.passes);
    }
    return out.str();
}

namespace {

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

}  // namespace

Result<CostTable> seed_cost_table(const std::vector<std::filesystem::path>& replies, std::string gpu) {
    std::vector<double> process, fixed, per_pass, passes, sampling, trace;
    std::string chip;
    for (const auto& path : replies) {
        std::ifstream in(path);
        nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
        if (j.is_discarded() || !j.contains("seconds") || !j.contains("passes") || !j["seconds"].is_object())
            return make_error(path.string() + ": not a counters reply (no seconds/passes)");
        const double p = j["passes"].get<double>();
        if (p <= 0) continue;
        if (chip.empty()) chip = j.value("chip", std::string());
        const auto& s = j["seconds"];
        auto phase = [&](const char* name) { return s.contains(name) && s[name].is_number() ? s[name].get<double>() : 0.0; };
        // "process" (the worker's start, context and module load, measured around it) is in replies
        // recorded since 2026-12-07; older ones charge the inputs and the warm-up call only.
        process.push_back(phase("process") + phase("prepare"));
        fixed.push_back(phase("setup") + phase("decode"));
        per_pass.push_back(phase("passes") / p);
        passes.push_back(p);
        if (s.contains("pc_sampling")) sampling.push_back(phase("pc_sampling"));
        if (s.contains("trace")) trace.push_back(phase("trace"));
    }
    if (passes.empty()) return make_error("no counters reply with a measured pass count");
    CostTable table;
    table.gpu = std::move(gpu);
    table.process_seconds = median(process);
    table.collection_seconds = median(fixed);
    table.seconds_per_pass = median(per_pass);
    table.actions[kLinesAction] = {median(sampling), 0};

    // Each action's passes alone (a tool's beyond the roofline's): CUPTI's plan for the chip.
    const auto roofline = counters_of_action(kRooflineAction);
    std::map<std::string, std::vector<std::string>> own{{kRooflineAction, roofline}};
    std::set<std::string> every(roofline.begin(), roofline.end());
    for (const auto* tool : analysis::default_tool_registry().all()) {
        const std::string action = "tool:" + std::string(tool->name());
        std::vector<std::string> beyond;
        for (const auto& m : counters_of_action(action))
            if (std::find(roofline.begin(), roofline.end(), m) == roofline.end()) beyond.push_back(m);
        every.insert(beyond.begin(), beyond.end());
        own[action] = std::move(beyond);
    }
    const bool planned = planned_passes(chip, {every.begin(), every.end()}).has_value();
    table.chip = planned ? chip : "";
    // Without the counters library: the counter-pass model, scaled to what was measured for the whole set.
    const int modelled_all = std::max(1, profile::estimate_ncu_replay_passes({every.begin(), every.end()}, {}, false));
    const double scale = median(passes) / modelled_all;
    for (const auto& [action, counters] : own) {
        int p = 0;
        if (!counters.empty())
            p = planned ? planned_passes(chip, counters).value_or(0)
                        : std::max(1, static_cast<int>(std::max(1, profile::estimate_ncu_replay_passes(counters, {}, false)) * scale + 0.5));
        table.actions[action] = {p * table.seconds_per_pass, p};
    }
    // A timeline is the call traced in the counters run, after its passes (no replay).
    for (const auto* tool : analysis::default_tool_registry().all())
        if (tool->needs().timeline) table.actions["tool:" + std::string(tool->name())].seconds += median(trace);
    table.source = fmt::format("seeded from {} recorded CUPTI counter replies (medians; passes {})", passes.size(),
                               planned ? "as CUPTI plans them for " + chip : "by the counter-pass model");
    return table;
}

}  // namespace kp::autoprofiler
