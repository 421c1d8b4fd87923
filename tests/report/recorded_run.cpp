#include "recorded_run.h"
#include "../source_tree.h"

#include <stdexcept>

#include "common/files.h"
#include "common/hash.h"
#include "build/tunables.h"
#include "eval/roofline_floor.h"
#include "gpu/datasheets.h"
#include "search/proposer_registry.h"
#include "search/proposers/parameter_space.h"
#include "search/search_driver.h"
#include "task/task_spec.h"

namespace kp::report::testing {

namespace {

// Stands in for the GPU evaluator with the outcome shape GpuEvaluator produces (roofline model,
// evaluation seconds, a profiler diagnosis with findings and evidence). Its verdicts follow the
// script's story: the kernel that uses the non-existent type half8 does not compile, the tanh
// approximation is wrong; other kernels are correct, with a time drawn from a hash of the key.
class StandInEvaluator : public search::Evaluator {
public:
    explicit StandInEvaluator(const TaskSpec& task) {
        gpu::DeviceInfo h200;
        h200.name = "NVIDIA H200";
        auto ceilings = gpu::datasheet_ceilings(h200);
        auto floor = ceilings ? roofline_floor(task, *ceilings, "datasheet (H200)") : std::nullopt;
        if (!floor) throw std::runtime_error("no H200 datasheet floor for " + task.name);
        model_ = roofline_model_json(task, floor->to_json());
    }

    Result<search::EvaluationOutcome> evaluate(const search::EvaluationRequest& request) override {
        const std::string& source = request.candidate.source;
        search::EvaluationOutcome o;
        o.details["roofline_model"] = model_;
        o.details["evaluation_seconds"] = {{"compile", 2.5}, {"verify", 0.4}, {"time", 0.9}, {"total", 3.8}};
        if (source.find("half8 v") != std::string::npos) {
            o.status = search::StatusClass::compile_error;
            o.message = "candidate.cu(8): error: identifier \"half8\" is undefined";
            return o;
        }
        if (source.find("tanhf") != std::string::npos) {
            o.status = search::StatusClass::incorrect;
            o.message = "correctness trial 1: output 'y': 48211 of 268435456 elements outside tolerance";
            return o;
        }
        Sha256 hash;
        hash.add(request.evaluation_key);
        double u = static_cast<double>(std::stoull(hash.hex().substr(0, 8), nullptr, 16)) / 4294967295.0;
        bool rewritten = source.find("gelu_vec8") != std::string::npos;  // the agents' kernels
        double fraction = rewritten ? 0.55 + 0.35 * u : 0.2 + 0.3 * u;
        double floor = model_["floor_seconds"].get<double>();
        o.median_seconds = floor / fraction;
        o.roofline_fraction = fraction;
        o.speedup = 0.45e-3 / *o.median_seconds;
        o.roofline_class = "memory_bound";
        // Energy as GpuEvaluator summarizes it: ~600 W while running, a few percent of spread.
        o.joules_per_call = *o.median_seconds * (560 + 80 * u);
        o.details["energy"] = {{"joules_per_call", *o.joules_per_call}, {"joules_per_call_stddev", 0.02 * *o.joules_per_call},
                               {"average_watts", 560 + 80 * u}, {"sm_clock_mhz", 1980}, {"idle_watts", 127.0}};
        o.findings = {analysis::make_finding("narrow_global_access", 0.4 * (1 - fraction), "loads are narrower than 16 bytes"),
                      analysis::make_finding("small_grid_tail", 0.05, "the last wave is partial")};
        double flops = model_["flops"].get<double>(), bytes = model_["bytes"].get<double>() * (1.05 + 0.1 * u);
        o.profiles["diagnosis"] = {
            {"kernel", "gelu"},
            {"roofline", {{"class", "memory_bound"}, {"arithmetic_intensity", flops / bytes}, {"achieved_flops_per_s", flops / *o.median_seconds}}},
            {"findings", {{{"tool", "narrow_global_access"}, {"estimated_gain", 0.4 * (1 - fraction)}, {"summary", "loads are narrower than 16 bytes"},
                           {"guidance", "load 16 bytes per thread"},
                           {"evidence", {{{"kind", "source"}, {"name", "candidate.cu:12"}, {"value", "LDG.E.U16 x 4"}},
                                         {{"kind", "metric"}, {"name", "dram__bytes_read.sum"}, {"value", std::to_string(bytes / 2)}}}}},
                          {{"tool", "small_grid_tail"}, {"estimated_gain", 0.05}, {"summary", "the last wave is partial"},
                           {"guidance", "size the grid in whole waves"}, {"evidence", nlohmann::json::array()}}}}};
        return o;
    }

private:
    nlohmann::json model_;
};

}  // namespace

RecordedRun record_gelu_run(const std::filesystem::path& store_path, int evaluations) {
    std::filesystem::remove(store_path);
    auto task = load_task(kp::testing::source_path("tasks/gelu_f16"));
    if (!task.ok()) throw std::runtime_error(task.error().message);
    auto store = store::RunStore::open(store_path, store::Durability::process_crash_safe);
    if (!store.ok()) throw std::runtime_error(store.error().message);
    // The tuner's moves and the agents' rewrites (answering from the example script), as
    // `optimize --llm script:...` makes them.
    search::ProposerContext context;
    context.task = {task->name, "recorded"};
    context.task_description = task->name + ": " + task->description;
    context.llm.spec = "script:" + kp::testing::source_path("examples/llm-scripts/gelu_f16.jsonl").string();
    auto proposer = search::make_proposers({"tuner", "llm"}, context);
    if (!proposer.ok()) throw std::runtime_error(proposer.error().message);
    StandInEvaluator evaluator(*task);
    search::SearchDriver driver(*store, evaluator, **proposer);
    search::SearchConfig config;
    config.seed = 7;
    config.stop_limits = {{"evaluation_budget", static_cast<double>(evaluations)}};
    config.repairable = {search::StatusClass::compile_error, search::StatusClass::incorrect};
    config.max_repair_chain = 3;
    // From the tunable kernel, so the tuner's moves and the agents' rewrites both grow the tree.
    auto source = read_text_file(task->directory / "candidates" / "tuned.cu");
    if (!source.ok()) throw std::runtime_error(source.error().message);
    auto space = parse_tunables(*source);
    if (!space.ok()) throw std::runtime_error(space.error().message);
    auto outcome = driver.start({task->name, "recorded"}, {*source, search::resolve_point(*source, *space, {})}, config);
    if (!outcome.ok()) throw std::runtime_error(outcome.error().message);
    return {store_path, outcome->run_id};
}

}  // namespace kp::report::testing
