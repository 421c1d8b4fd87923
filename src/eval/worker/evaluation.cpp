#include "eval/worker/evaluation.h"

#include <cuda_profiler_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>

#include "common/stopwatch.h"
#include "eval/worker/counter_collection.h"
#include "eval/worker/energy_meter.h"
#include "eval/worker/evaluation_context.h"
#include "eval/worker/timing_phase.h"
#include "eval/worker/trusted_library.h"
#include "eval/worker/worker_failure.h"
#include "gpu/dynamic_library.h"

namespace kp::worker {

namespace {

using Clock = std::chrono::steady_clock;

// A reference whose output barely varies lets a constant (or zero) kernel pass: say so.
std::optional<std::string> degenerate_warning(EvaluationContext& c, const TensorGroup& expected) {
    for (size_t o = 0; o < c.outputs.size(); ++o) {
        CompareStats s;
        check_cuda(compare_outputs(expected.buffer(o), expected.buffer(o), 0, 0, c.gpu.stream(), &s), "reference stats");
        double range = s.reference_max - s.reference_min;
        double scale = std::max(std::fabs(s.reference_max), std::fabs(s.reference_min));
        if (s.elements > 1 && (range <= 1e-6 * std::max(scale, 1e-30) || s.reference_mean_abs <= 10 * c.outputs[o].atol))
            return "reference output '" + c.outputs[o].spec.name + "' is nearly constant (range " + std::to_string(range) +
                   ", mean |x| " + std::to_string(s.reference_mean_abs) + "): a constant or zero output could pass; the task is degenerate";
    }
    return std::nullopt;
}

// Energy windows after timing: the candidate's calls (and the baseline's) back to back over the
// same rotating input sets; after each candidate window its last outputs are checked against the
// baseline on the same inputs, so a kernel cannot skip work once timing is over.
nlohmann::json measure_energy_phase(EvaluationContext& c, const EnergyCounter* counter, const std::string& why_no_counter,
                                    const KernelLibrary& candidate, TensorGroup& out, const KernelLibrary* baseline,
                                    TensorGroup& baseline_out, double candidate_median, double baseline_median) {
    const auto sets = static_cast<std::uint64_t>(c.input_sets.size());
    auto last = std::make_shared<std::uint64_t>(0);
    std::vector<EnergySide> sides;
    sides.push_back({"candidate", candidate_median,
                     [&c, &candidate, &out, last, sets](std::uint64_t i) {
                         *last = i;
                         c.gpu.enqueue(candidate, c.input_sets[i % sets].views(), out.views(), "energy window");
                     },
                     [&c, &out, &baseline_out, baseline, last, sets] {
                         if (!baseline) return;
                         c.gpu.call(*baseline, c.input_sets[*last % sets].views(), baseline_out.views(), "energy check");
                         check_outputs(c, baseline_out, out, "energy window: outputs produced while measured are wrong");
                     }});
    if (baseline && c.request.energy.measure_baseline)
        sides.push_back({"baseline", baseline_median,
                         [&c, baseline, &baseline_out, sets](std::uint64_t i) {
                             c.gpu.enqueue(*baseline, c.input_sets[i % sets].views(), baseline_out.views(), "energy window (baseline)");
                         },
                         [] {}});
    return measure_energy(c.request.energy, counter, why_no_counter, c.gpu, c.channel, sides, c.request.call_timeout_seconds);
}

}  // namespace

nlohmann::json run_evaluation(const WorkerRequest& request, GpuSession& gpu, const Channel& channel, CandidateGate& gate) {
    EvaluationContext c(request, gpu, channel);
    // The output poison patterns come from request.variant: by default 0xFF, which makes every float
    // NaN, and 0x5A, finite garbage for floats and distinct integers, so an element left unwritten
    // differs between the two runs of a trial.
    const unsigned char poison_a = request.variant.poison_a, poison_b = request.variant.poison_b;
    nlohmann::json result{{"type", "result"}, {"warnings", nlohmann::json::array()}};
    const int sets = std::max(1, request.timing.input_sets);
    for (int s = 0; s < sets; ++s) c.input_sets.push_back(c.group(c.inputs));
    if (!request.reference_data_sets.empty()) load_data_sets(c);
    const bool have_reference_kernel = !request.reference_library.empty();
    const int trials = std::max(1, c.data_sets.empty() ? request.trials : std::max<int>(request.trials, static_cast<int>(c.data_sets.size())));

    // Phase 1: expected outputs for every trial, before any untrusted code is in the process.
    channel.progress("reference");
    std::vector<TensorGroup> expected;
    std::vector<std::vector<uint64_t>> input_sums;
    KernelLibrary reference;  // also the timing baseline unless another is given
    std::vector<std::pair<std::string, KernelLibrary>> extras;  // trusted extra baselines, timed too
    {
        const std::string task_json = request.task.dump();
        if (have_reference_kernel) reference = load_trusted_library(request.reference_library, "reference", task_json, channel);
        if (reference.loaded()) setup_library(reference, c, "reference");
        for (const auto& extra : request.extra_baselines) {
            extras.emplace_back(extra.name, load_trusted_library(extra.library, extra.name + " baseline", task_json, channel));
            setup_library(extras.back().second, c, "reference");
        }
        for (int k = 0; k < trials; ++k) {
            size_t set = static_cast<size_t>(k % sets);
            input_sums.push_back(prepare_inputs(c, set, static_cast<uint64_t>(k)));
            expected.push_back(c.group(c.outputs));
            if (reference.loaded()) {
                gpu.call(reference, c.input_sets[set].views(), expected.back().views(), "reference");
                if (auto changed = inputs_changed(c, set, input_sums.back()))
                    throw WorkerFailure(FailureClass::Crash, "the reference kernel modifies its input '" + *changed + "': fix the task", "reference");
            } else {
                upload_expected(c, static_cast<size_t>(k), expected.back());
            }
        }
        if (auto warning = degenerate_warning(c, expected.front())) result["warnings"].push_back(*warning);
    }

    // NVML for energy is opened now, before the sandbox and before any untrusted code is in the process.
    std::string why_no_counter;
    EnergyCounterHandle energy_counter = request.energy.enabled ? open_energy_counter(why_no_counter) : nullptr;

    // Phase 2: the sandbox goes on, then the candidate (and a separate baseline, if any) loads.
    gate.enter();
    channel.progress("load");
    KernelLibrary candidate = KernelLibrary::load(request.candidate_library, "candidate");
    setup_library(candidate, c, "setup");

    // Phase 3: correctness trials. Each trial: fresh inputs; two runs with different poison; both
    // must match the reference, match each other, and leave the inputs untouched.
    channel.progress("correctness", {{"trials", trials}});
    TensorGroup out_a = c.group(c.outputs), out_b = c.group(c.outputs);
    nlohmann::json trial_results = nlohmann::json::array();
    for (int k = 0; k < trials; ++k) {
        size_t set = static_cast<size_t>(k % sets);
        auto sums = prepare_inputs(c, set, static_cast<uint64_t>(k));
        std::string what = "correctness trial " + std::to_string(k + 1);
        out_a.poison(poison_a, gpu.stream());
        gpu.call(candidate, c.input_sets[set].views(), out_a.views(), what);
        if (auto changed = inputs_changed(c, set, sums))
            throw WorkerFailure(FailureClass::Incorrect, what + ": the candidate modified input '" + *changed + "'", what);
        auto first = check_outputs(c, expected[static_cast<size_t>(k)], out_a, what);
        out_b.poison(poison_b, gpu.stream());
        gpu.call(candidate, c.input_sets[set].views(), out_b.views(), what + " (second run)");
        if (auto changed = inputs_changed(c, set, sums))
            throw WorkerFailure(FailureClass::Incorrect, what + ": the candidate modified input '" + *changed + "'", what);
        check_outputs(c, expected[static_cast<size_t>(k)], out_b, what + " (second run)");
        check_outputs(c, out_a, out_b, what + ": the same inputs run twice disagree (uninitialised memory or a race)");
        trial_results.push_back({{"trial", k + 1}, {"outputs", first}});
    }
    result["correctness"] = {{"passed", true}, {"trials", trial_results}};
    expected.clear();  // frees the trial outputs before timing

    if (!request.timing.enabled) return result;

    // Phase 4: cold timing (timing_phase.h).
    KernelLibrary custom_baseline;
    if (!request.baseline_library.empty()) custom_baseline = KernelLibrary::load(request.baseline_library, "baseline");
    const KernelLibrary* baseline = nullptr;
    if (custom_baseline.loaded()) {
        baseline = &custom_baseline;
        setup_library(custom_baseline, c, "setup");
    } else if (reference.loaded()) {
        baseline = &reference;
    }
    TensorGroup baseline_out = c.group(c.outputs), expected_out = c.group(c.outputs);
    TensorGroup extra_out = extras.empty() ? TensorGroup() : c.group(c.outputs);  // written, never read

    channel.progress("warmup");
    for (int w = 0; w < request.timing.warmup_calls; ++w) {
        prepare_inputs(c, 0, 0);
        gpu.call(candidate, c.input_sets[0].views(), out_a.views(), "warm-up");
        if (baseline) gpu.call(*baseline, c.input_sets[0].views(), baseline_out.views(), "warm-up");
        for (auto& [name, library] : extras) gpu.call(library, c.input_sets[0].views(), extra_out.views(), "warm-up");
    }

    TimedSides sides{candidate, out_a, poison_a, baseline, baseline_out,
                     custom_baseline.loaded() && reference.loaded() ? &reference : nullptr, !custom_baseline.loaded(),
                     expected_out, extras, extra_out};
    TimingOutcome timed = run_timing_phase(c, sides);
    result["timing"] = timed.timing;
    if (request.energy.enabled)
        result["energy"] = measure_energy_phase(c, energy_counter.get(), why_no_counter, candidate, out_a, baseline, baseline_out,
                                                timed.candidate_median, timed.baseline_median);
    return result;
}

namespace {
// Both profile modes: inputs (set 0), the library loaded and set up, one untimed warm-up call; then
// `body` gets `call(phase)`, which runs the library once more on the same inputs, and the seconds
// that preparation took.
template <typename Body>
nlohmann::json with_profiled_call(const WorkerRequest& request, GpuSession& gpu, const Channel& channel, CandidateGate& gate,
                                  Body body) {
    const auto prepare_start = Clock::now();
    EvaluationContext c(request, gpu, channel);
    c.input_sets.push_back(c.group(c.inputs));
    if (!request.reference_data_sets.empty()) load_data_sets(c);
    prepare_inputs(c, 0, 0);
    TensorGroup out = c.group(c.outputs);
    // The counters library (and CUPTI with it) loads before the sandbox, from where it was built.
    if (request.mode == "profile_counters" && !request.counters_library.empty()) {
        auto counters = gpu::DynamicLibrary::open({request.counters_library}, gpu::DynamicLibrary::Lifetime::process);
        // PC records exist only for modules loaded while sampling is enabled: before the candidate's.
        if (counters && (request.pc_sampling || request.pc_sampling_later)) enable_pc_sampling_early(*counters);
    }
    // A trusted reference (the PyTorch bridge) starts before the sandbox, as in an evaluation.
    KernelLibrary library;
    if (request.profile_reference) library = load_trusted_library(request.reference_library, "reference", request.task.dump(), channel);
    gate.enter();
    if (!request.profile_reference) library = KernelLibrary::load(request.candidate_library, "candidate");
    setup_library(library, c, "setup");
    gpu.call(library, c.input_sets[0].views(), out.views(), "profile warm-up");
    auto& views = c.input_sets[0].views();
    auto& out_views = out.views();
    auto call = [&](const std::string& phase) { gpu.call(library, views, out_views, phase); };
    return body(call, seconds_since(prepare_start));
}
}  // namespace

nlohmann::json run_profile(const WorkerRequest& request, GpuSession& gpu, const Channel& channel, CandidateGate& gate) {
    return with_profiled_call(request, gpu, channel, gate, [&](const auto& call, double) -> nlohmann::json {
        channel.progress("profile", {{"iterations", request.profile_iterations}});
        cudaProfilerStart();
        for (int i = 0; i < request.profile_iterations; ++i) call("profiled call");
        cudaProfilerStop();
        return {{"type", "result"}, {"profiled_calls", request.profile_iterations}};
    });
}

nlohmann::json run_counters(const WorkerRequest& request, GpuSession& gpu, const Channel& channel, CandidateGate& gate) {
    return with_profiled_call(request, gpu, channel, gate, [&](const auto& call, double prepare_seconds) -> nlohmann::json {
        CountingAsk ask = first_ask(request);
        for (int collections = 1;; ++collections) {
            channel.progress("counters", {{"metrics", ask.counter_metrics.size()}, {"collection", collections}});
            nlohmann::json counters = collect_counters(ask, request.counters_library, gpu, call);
            if (collections == 1 && counters.is_object() && !counters.contains("error")) counters["seconds"]["prepare"] = prepare_seconds;
            if (!request.follow_ups) return {{"type", "result"}, {"counters", std::move(counters)}};
            // The orchestrator answers each collection with the next one, or ends stdin; it never
            // takes ten minutes to plan one.
            channel.send({{"type", "collection"}, {"counters", std::move(counters)}});
            auto next = read_follow_up(0, request, 600);
            if (!next) return {{"type", "result"}, {"collections", collections}};
            ask = std::move(*next);
        }
    });
}

}  // namespace kp::worker
