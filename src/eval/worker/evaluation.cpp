#include "eval/worker/evaluation.h"

#include <cuda_profiler_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <sstream>

#include "common/stopwatch.h"
#include "eval/throttle_policy.h"
#include "eval/worker/counter_collection.h"
#include "eval/worker/energy_meter.h"
#include "eval/worker/fixed_inputs.h"
#include "eval/worker/tensor_sets.h"
#include "eval/worker/trusted_library.h"
#include "eval/worker/worker_failure.h"
#include "gpu/dynamic_library.h"
#include "task/safetensors.h"

namespace kp::worker {

namespace {

using Clock = std::chrono::steady_clock;

uint64_t mix_seed(uint64_t seed, uint64_t a, uint64_t b) {
    uint64_t x = seed ^ (a * 0x9E3779B97F4A7C15ull) ^ (b * 0xC2B2AE3D27D4EB4Full);
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// The output poison patterns come from request.variant: by default 0xFF, which makes every float
// NaN, and 0x5A, finite garbage for floats and distinct integers, so an element left unwritten
// differs between the two runs of a trial.
struct Context {
    const WorkerRequest& request;
    GpuSession& gpu;
    const Channel& channel;
    std::vector<TensorLayout> inputs, outputs;
    std::vector<TensorGroup> input_sets;  // rotated
    std::vector<TensorSet> data_sets;     // reference data from safetensors (when given)
    BufferLayout layout;                  // where every buffer lands (request.variant.layout)
    FixedInputs fixed;                    // parameters and buffers: the same values every time

    TensorGroup group(const std::vector<TensorLayout>& tensors) { return TensorGroup(tensors, layout); }
};

std::vector<uint64_t> input_checksums(Context& c, size_t set) {
    std::vector<uint64_t> sums;
    for (size_t i = 0; i < c.inputs.size(); ++i) {
        uint64_t s = 0;
        check_cuda(checksum(c.input_sets[set].buffer(i), c.gpu.stream(), &s), "checksumming inputs");
        sums.push_back(s);
    }
    return sums;
}

// Calls kp_setup with shapes only; a non-zero answer is the library's failure.
void setup_library(const KernelLibrary& library, const Context& c, const std::string& phase) {
    if (int rc = library.setup(shape_only_views(c.inputs), shape_only_views(c.outputs)); rc != 0)
        throw WorkerFailure(FailureClass::Crash, library.role() + " kp_setup returned " + std::to_string(rc), phase);
}

// Fills input set `set` for trial/sample `index`: fresh values from the seed, or a stored data set.
std::vector<uint64_t> prepare_inputs(Context& c, size_t set, uint64_t round) {
    TensorGroup& group = c.input_sets[set];
    for (size_t i = 0; i < c.inputs.size(); ++i)
        if (c.fixed.is_fixed(i)) c.fixed.upload(i, set, group, c.gpu.stream());
    if (!c.data_sets.empty()) {
        const TensorSet& data = c.data_sets[round % c.data_sets.size()];
        for (size_t i = 0; i < c.inputs.size(); ++i) {
            if (c.fixed.is_fixed(i)) continue;
            const HostTensor& t = data.at(c.inputs[i].spec.name);
            check_cuda(cudaMemcpyAsync(group.buffer(i).data, t.bytes.data(), t.bytes.size(), cudaMemcpyHostToDevice,
                                       c.gpu.stream()), "uploading input " + c.inputs[i].spec.name);
        }
    } else {
        for (size_t i = 0; i < c.inputs.size(); ++i)
            if (!c.fixed.is_fixed(i))
                check_cuda(fill_random(group.buffer(i), c.inputs[i].spec.distribution, mix_seed(c.request.seed, round, i),
                                       c.gpu.stream()), "generating input " + c.inputs[i].spec.name);
    }
    return input_checksums(c, set);
}

// The same buffers as the previous sample with a sparse set of elements redrawn: a kernel that
// caches results by pointer, or by hashing a few input values, replays a stale answer and fails.
std::vector<uint64_t> perturb_inputs(Context& c, size_t set, uint64_t round) {
    TensorGroup& group = c.input_sets[set];
    for (size_t i = 0; i < c.inputs.size(); ++i)
        if (!c.fixed.is_fixed(i))
            check_cuda(perturb_random(group.buffer(i), c.inputs[i].spec.distribution, mix_seed(c.request.seed, round, i), 251,
                                      c.gpu.stream()), "perturbing input " + c.inputs[i].spec.name);
    return input_checksums(c, set);
}

std::optional<std::string> inputs_changed(Context& c, size_t set, const std::vector<uint64_t>& before) {
    auto now = input_checksums(c, set);
    for (size_t i = 0; i < c.inputs.size(); ++i)
        if (now[i] != before[i]) return c.inputs[i].spec.name;
    return std::nullopt;
}

nlohmann::json compare_json(const CompareStats& s, const DeviceBuffer& reference, const DeviceBuffer& output) {
    nlohmann::json j{{"elements", s.elements}, {"mismatches", s.mismatches}, {"nonfinite_outputs", s.nonfinite_outputs},
                     {"max_abs_error", s.max_abs_error}, {"max_abs_index", s.max_abs_index},
                     {"max_rel_error", s.max_rel_error}, {"max_rel_index", s.max_rel_index}};
    if (s.first_mismatch >= 0) {
        double r = 0, o = 0;
        read_element(reference, s.first_mismatch, &r);
        read_element(output, s.first_mismatch, &o);
        j["first_mismatch"] = {{"index", s.first_mismatch},
                               {"expected", std::isfinite(r) ? nlohmann::json(r) : nlohmann::json(std::to_string(r))},
                               {"got", std::isfinite(o) ? nlohmann::json(o) : nlohmann::json(std::to_string(o))}};
    }
    return j;
}

std::string mismatch_message(const std::string& what, const std::string& name, const CompareStats& s,
                             const nlohmann::json& detail) {
    std::ostringstream m;
    m << what << ": output '" << name << "': " << s.mismatches << " of " << s.elements << " elements outside tolerance";
    if (s.nonfinite_outputs) m << " (" << s.nonfinite_outputs << " NaN/inf, e.g. never written)";
    if (detail.contains("first_mismatch")) {
        const auto& f = detail["first_mismatch"];
        m << "; first at index " << f["index"] << ": expected " << f["expected"] << ", got " << f["got"];
    }
    m << "; max abs error " << s.max_abs_error << ", max rel error " << s.max_rel_error;
    return m.str();
}

// Compares every output with the expected ones; throws Incorrect on any mismatch.
nlohmann::json check_outputs(Context& c, const TensorGroup& expected, const TensorGroup& got, const std::string& what) {
    nlohmann::json per_output = nlohmann::json::array();
    for (size_t o = 0; o < c.outputs.size(); ++o) {
        CompareStats s;
        check_cuda(compare_outputs(expected.buffer(o), got.buffer(o), c.outputs[o].atol, c.outputs[o].rtol, c.gpu.stream(), &s),
                   "comparing outputs");
        auto j = compare_json(s, expected.buffer(o), got.buffer(o));
        j["name"] = c.outputs[o].spec.name;
        if (s.mismatches > 0) throw WorkerFailure(FailureClass::Incorrect, mismatch_message(what, c.outputs[o].spec.name, s, j), what);
        per_output.push_back(j);
    }
    return per_output;
}

void load_data_sets(Context& c) {
    for (const auto& path : c.request.reference_data_sets) {
        auto set = read_safetensors(path);
        if (!set.ok()) throw WorkerFailure(FailureClass::Crash, "reference data: " + set.error().message, "reference");
        for (const auto* list : {&c.inputs, &c.outputs})
            for (const auto& l : *list) {
                if (l.spec.distribution.kind == DistributionKind::Fixed) continue;
                auto it = set->find(l.spec.name);
                if (it == set->end())
                    throw WorkerFailure(FailureClass::Crash, "reference data " + path + " has no tensor '" + l.spec.name + "'", "reference");
                if (static_cast<int64_t>(it->second.bytes.size()) != l.spec.storage_bytes() || it->second.dtype != l.spec.dtype)
                    throw WorkerFailure(FailureClass::Crash, "reference data " + path + ": tensor '" + l.spec.name +
                                                                 "' does not match the task's dtype and shape", "reference");
            }
        c.data_sets.push_back(std::move(*set));
    }
}

void upload_expected(Context& c, size_t round, TensorGroup& expected) {
    const TensorSet& data = c.data_sets[round % c.data_sets.size()];
    for (size_t o = 0; o < c.outputs.size(); ++o) {
        const HostTensor& t = data.at(c.outputs[o].spec.name);
        check_cuda(cudaMemcpyAsync(expected.buffer(o).data, t.bytes.data(), t.bytes.size(), cudaMemcpyHostToDevice,
                                   c.gpu.stream()), "uploading expected outputs");
    }
    c.gpu.wait_all("reference");
}

// A reference whose output barely varies lets a constant (or zero) kernel pass: say so.
std::optional<std::string> degenerate_warning(Context& c, const TensorGroup& expected) {
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

nlohmann::json summary_json(const std::vector<double>& seconds, const std::vector<unsigned>& clocks) {
    auto j = summarize(seconds).to_json();
    if (!clocks.empty()) {
        std::vector<unsigned> sorted = clocks;
        std::sort(sorted.begin(), sorted.end());
        j["sm_clock_mhz_median"] = sorted[sorted.size() / 2];
        j["sm_clock_mhz_min"] = sorted.front();
    }
    return j;
}

// Energy windows after timing: the candidate's calls (and the baseline's) back to back over the
// same rotating input sets; after each candidate window its last outputs are checked against the
// baseline on the same inputs, so a kernel cannot skip work once timing is over.
nlohmann::json measure_energy_phase(Context& c, const EnergyCounter* counter, const std::string& why_no_counter,
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
    Context c{request, gpu, channel, layouts_from_task_json(request.task, "inputs"),
              layouts_from_task_json(request.task, "outputs"), {}, {}, BufferLayout(request.variant.layout), {}};
    const unsigned char poison_a = request.variant.poison_a, poison_b = request.variant.poison_b;
    c.fixed = FixedInputs::load(c.inputs);
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

    // Phase 4: cold timing, baseline and candidate interleaved (order alternating), inputs refilled
    // from a fresh seed every sample and rotated among several buffers, every candidate output
    // checked against the baseline/reference output of the same sample.
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

    channel.progress("timing");
    std::vector<double> candidate_times, baseline_times, candidate_host_times;
    std::vector<std::vector<double>> extra_times(extras.size());
    std::vector<unsigned> candidate_clocks, baseline_clocks;
    size_t flagged_host = 0, throttled = 0, discarded_throttled = 0, checked_outputs = 0;
    TimedStart start = request.timing.queued_start ? TimedStart::Queued : TimedStart::Idle;
    std::string start_fallback;  // why a queued start went back to idle
    double measured = 0;
    auto timing_start = Clock::now();
    auto last_progress = timing_start;
    StoppingRule::Verdict verdict = StoppingRule::Verdict::Continue;
    for (uint64_t s = 0; verdict == StoppingRule::Verdict::Continue; ++s) {
        // Even samples: fresh inputs in the next of the rotating buffers. Odd samples: the previous
        // sample's buffers, sparsely perturbed (see perturb_inputs). Data-set tasks only rotate.
        bool perturbed = s % 2 == 1 && c.data_sets.empty();
        size_t set = static_cast<size_t>((perturbed ? s - 1 : s) / 2 % static_cast<uint64_t>(sets));
        if (!c.data_sets.empty()) set = static_cast<size_t>(s % static_cast<uint64_t>(sets));
        uint64_t round = 1000 + s;
        auto sums = perturbed ? perturb_inputs(c, set, round) : prepare_inputs(c, set, round);
        std::string what = "timed call " + std::to_string(s + 1);
        ColdSample cand{}, base{};
        std::vector<double> extras_now(extras.size());
        auto time_candidate = [&] {
            out_a.poison(poison_a, gpu.stream());
            cand = gpu.timed_call(candidate, c.input_sets[set].views(), out_a.views(), what, start);
        };
        auto time_baseline = [&] {
            if (baseline)
                base = gpu.timed_call(*baseline, c.input_sets[set].views(), baseline_out.views(), what + " (baseline)", start);
            for (size_t e = 0; e < extras.size(); ++e) {
                auto sample = gpu.timed_call(extras[e].second, c.input_sets[set].views(), extra_out.views(),
                                             what + " (" + extras[e].first + ")", start);
                extras_now[e] = sample.event_seconds;
                if (sample.hold_timed_out && start_fallback.empty()) start_fallback = extras[e].first;
            }
        };
        if (s % 2 == 0) { time_baseline(); time_candidate(); }
        else { time_candidate(); time_baseline(); }
        if (auto changed = inputs_changed(c, set, sums))
            throw WorkerFailure(FailureClass::Incorrect, what + ": the candidate modified input '" + *changed + "'", "timing");
        // The outputs produced while timed are checked too (a kernel that skips work when it thinks
        // it is being timed fails here).
        const TensorGroup* truth = nullptr;
        if (!c.data_sets.empty()) {
            upload_expected(c, round, expected_out);
            truth = &expected_out;
        } else if (custom_baseline.loaded()) {
            if (reference.loaded()) {
                gpu.call(reference, c.input_sets[set].views(), expected_out.views(), "reference");
                truth = &expected_out;
            }
        } else {
            truth = &baseline_out;
        }
        if (truth) {
            check_outputs(c, *truth, out_a, what + ": outputs produced during timing are wrong");
            ++checked_outputs;
        }
        // A side whose kp_forward waited on the held stream: every side goes back to idle starts and
        // the samples so far are dropped, so all sides of a speedup are timed the same way.
        if (cand.hold_timed_out && start_fallback.empty()) start_fallback = "candidate";
        if (baseline && base.hold_timed_out && start_fallback.empty()) start_fallback = "baseline";
        if (!start_fallback.empty() && start == TimedStart::Queued) {
            start = TimedStart::Idle;
            candidate_times.clear(), baseline_times.clear(), candidate_host_times.clear();
            candidate_clocks.clear(), baseline_clocks.clear();
            for (auto& times : extra_times) times.clear();
            flagged_host = throttled = discarded_throttled = 0;
            measured = 0;
            continue;
        }
        // Samples taken while the GPU slowed itself are taken again, within a bound (throttle_policy.h).
        const bool slowed = cand.throttled || (baseline && base.throttled);
        if (drop_throttled_sample(slowed, discarded_throttled, candidate_times.size())) {
            ++discarded_throttled;
            continue;
        }
        if (slowed) ++throttled;
        for (size_t e = 0; e < extras.size(); ++e) extra_times[e].push_back(extras_now[e]);
        if (cand.host_seconds > request.timing.host_factor * cand.event_seconds + request.timing.host_slack_seconds) ++flagged_host;
        candidate_times.push_back(cand.event_seconds);
        candidate_host_times.push_back(cand.host_seconds);
        candidate_clocks.push_back(cand.sm_clock_mhz);
        if (baseline) {
            baseline_times.push_back(base.event_seconds);
            baseline_clocks.push_back(base.sm_clock_mhz);
        }
        measured += cand.event_seconds;
        double wall = std::chrono::duration<double>(Clock::now() - timing_start).count();
        verdict = request.timing.stopping.decide(candidate_times, measured, wall);
        // The speedups need every side pinned down, not only the candidate.
        auto settled = [&](const std::vector<double>& times) {
            return request.timing.stopping.decide(times, measured, wall) != StoppingRule::Verdict::Continue;
        };
        if (verdict == StoppingRule::Verdict::Converged || verdict == StoppingRule::Verdict::StandardError ||
            verdict == StoppingRule::Verdict::MedianPinned) {
            bool all = !baseline || settled(baseline_times);
            for (const auto& times : extra_times) all = all && settled(times);
            if (!all) verdict = StoppingRule::Verdict::Continue;
        }
        if (std::chrono::duration<double>(Clock::now() - last_progress).count() > 0.5) {
            last_progress = Clock::now();
            channel.progress("timing", {{"samples", candidate_times.size()}, {"median_s", summarize(candidate_times).median}});
        }
    }

    auto host_summary = summarize(candidate_host_times);
    auto cand_summary = summarize(candidate_times);
    if (flagged_host * 4 > candidate_times.size())
        throw WorkerFailure(FailureClass::InvalidTiming,
                            "work outside the timed stream: the host clock (launch to device-wide sync) saw a median of " +
                                std::to_string(host_summary.median * 1e6) + " us per call while the events saw " +
                                std::to_string(cand_summary.median * 1e6) + " us (" + std::to_string(flagged_host) + " of " +
                                std::to_string(candidate_times.size()) + " samples)",
                            "timing");
    nlohmann::json timing{{"candidate", summary_json(candidate_times, candidate_clocks)},
                          {"candidate_host", host_summary.to_json()},
                          {"stop_reason", verdict_name(verdict)},
                          {"samples", candidate_times.size()},
                          {"host_flagged_samples", flagged_host},
                          {"throttled_samples", throttled},
                          {"throttled_samples_discarded", discarded_throttled},
                          {"checked_timed_outputs", checked_outputs},
                          {"input_sets", sets},
                          {"start", timed_start_name(start == TimedStart::Queued)},
                          {"wall_seconds", std::chrono::duration<double>(Clock::now() - timing_start).count()}};
    if (!start_fallback.empty())
        timing["start_fallback"] = "the " + start_fallback + " waited on the GPU inside kp_forward: queued starts are impossible";
    if (baseline) {
        timing["baseline"] = summary_json(baseline_times, baseline_clocks);
        timing["baseline_is_reference"] = !custom_baseline.loaded();
        double cm = cand_summary.median, bm = summarize(baseline_times).median;
        if (cm > 0) timing["speedup"] = bm / cm;
    }
    for (size_t e = 0; e < extras.size(); ++e) {
        timing["extra_baselines"][extras[e].first] = summary_json(extra_times[e], {});
        double cm = cand_summary.median, em = summarize(extra_times[e]).median;
        if (cm > 0) timing["extra_speedups"][extras[e].first] = em / cm;
    }
    result["timing"] = timing;
    if (request.energy.enabled)
        result["energy"] = measure_energy_phase(c, energy_counter.get(), why_no_counter, candidate, out_a, baseline, baseline_out,
                                                cand_summary.median,
                                                baseline ? summarize(baseline_times).median : 0.0);
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
    Context c{request, gpu, channel, layouts_from_task_json(request.task, "inputs"),
              layouts_from_task_json(request.task, "outputs"), {}, {}, BufferLayout(request.variant.layout), {}};
    c.fixed = FixedInputs::load(c.inputs);
    c.input_sets.push_back(c.group(c.inputs));
    if (!request.reference_data_sets.empty()) load_data_sets(c);
    prepare_inputs(c, 0, 0);
    TensorGroup out = c.group(c.outputs);
    // The counters library (and CUPTI with it) loads before the sandbox, from where it was built.
    if (request.mode == "profile_counters" && !request.counters_library.empty()) {
        auto counters = gpu::DynamicLibrary::open({request.counters_library}, gpu::DynamicLibrary::Lifetime::process);
        // PC records exist only for modules loaded while sampling is enabled: before the candidate's.
        if (counters && request.pc_sampling) enable_pc_sampling_early(*counters);
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
        channel.progress("counters", {{"metrics", request.counter_metrics.size()}});
        nlohmann::json counters = collect_counters(request, gpu, call);
        if (counters.is_object() && !counters.contains("error")) counters["seconds"]["prepare"] = prepare_seconds;
        return {{"type", "result"}, {"counters", std::move(counters)}};
    });
}

}  // namespace kp::worker
