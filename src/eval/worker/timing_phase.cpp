#include "eval/worker/timing_phase.h"

#include <algorithm>
#include <chrono>

#include "common/stopwatch.h"
#include "eval/sample_statistics.h"
#include "eval/throttle_policy.h"
#include "eval/worker/worker_failure.h"

namespace kp::worker {

namespace {

using Clock = std::chrono::steady_clock;

// The samples kept so far; a fall-back to idle starts drops them all at once.
struct SampleSeries {
    explicit SampleSeries(size_t extras) : extras(extras) {}
    std::vector<double> candidate, baseline, candidate_host;
    std::vector<std::vector<double>> extras;
    std::vector<unsigned> candidate_clocks, baseline_clocks;
    size_t flagged_host = 0, throttled = 0, discarded_throttled = 0;
    double measured = 0;  // candidate seconds
};

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

}  // namespace

TimingOutcome run_timing_phase(EvaluationContext& c, const TimedSides& sides) {
    const WorkerRequest& request = c.request;
    GpuSession& gpu = c.gpu;
    const auto& extras = sides.extras;
    const KernelLibrary* baseline = sides.baseline;
    const auto sets = static_cast<uint64_t>(c.input_sets.size());
    c.channel.progress("timing");
    SampleSeries series(extras.size());
    size_t checked_outputs = 0;
    TimedStart start = request.timing.queued_start ? TimedStart::Queued : TimedStart::Idle;
    std::string start_fallback;  // why a queued start went back to idle
    const auto timing_start = Clock::now();
    auto last_progress = timing_start;
    StoppingRule::Verdict verdict = StoppingRule::Verdict::Continue;
    for (uint64_t s = 0; verdict == StoppingRule::Verdict::Continue; ++s) {
        // Even samples: fresh inputs in the next of the rotating buffers. Odd samples: the previous
        // sample's buffers, sparsely perturbed (see perturb_inputs). Data-set tasks only rotate.
        bool perturbed = s % 2 == 1 && c.data_sets.empty();
        size_t set = static_cast<size_t>((perturbed ? s - 1 : s) / 2 % sets);
        if (!c.data_sets.empty()) set = static_cast<size_t>(s % sets);
        uint64_t round = 1000 + s;
        auto sums = perturbed ? perturb_inputs(c, set, round) : prepare_inputs(c, set, round);
        std::string what = "timed call " + std::to_string(s + 1);
        ColdSample cand{}, base{};
        std::vector<double> extras_now(extras.size());
        auto time_candidate = [&] {
            sides.candidate_out.poison(sides.candidate_poison, gpu.stream());
            cand = gpu.timed_call(sides.candidate, c.input_sets[set].views(), sides.candidate_out.views(), what, start);
        };
        auto time_baseline = [&] {
            if (baseline)
                base = gpu.timed_call(*baseline, c.input_sets[set].views(), sides.baseline_out.views(), what + " (baseline)", start);
            for (size_t e = 0; e < extras.size(); ++e) {
                auto sample = gpu.timed_call(extras[e].second, c.input_sets[set].views(), sides.extra_out.views(),
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
            upload_expected(c, round, sides.expected_out);
            truth = &sides.expected_out;
        } else if (sides.separate_reference) {
            gpu.call(*sides.separate_reference, c.input_sets[set].views(), sides.expected_out.views(), "reference");
            truth = &sides.expected_out;
        } else if (sides.baseline_is_truth) {
            truth = &sides.baseline_out;
        }
        if (truth) {
            check_outputs(c, *truth, sides.candidate_out, what + ": outputs produced during timing are wrong");
            ++checked_outputs;
        }
        // A side whose kp_forward waited on the held stream: every side goes back to idle starts and
        // the samples so far are dropped, so all sides of a speedup are timed the same way.
        if (cand.hold_timed_out && start_fallback.empty()) start_fallback = "candidate";
        if (baseline && base.hold_timed_out && start_fallback.empty()) start_fallback = "baseline";
        if (!start_fallback.empty() && start == TimedStart::Queued) {
            start = TimedStart::Idle;
            series = SampleSeries(extras.size());
            continue;
        }
        // Samples taken while the GPU slowed itself are taken again, within a bound (throttle_policy.h).
        const bool slowed = cand.throttled || (baseline && base.throttled);
        if (drop_throttled_sample(slowed, series.discarded_throttled, series.candidate.size())) {
            ++series.discarded_throttled;
            continue;
        }
        if (slowed) ++series.throttled;
        for (size_t e = 0; e < extras.size(); ++e) series.extras[e].push_back(extras_now[e]);
        if (cand.host_seconds > request.timing.host_factor * cand.event_seconds + request.timing.host_slack_seconds)
            ++series.flagged_host;
        series.candidate.push_back(cand.event_seconds);
        series.candidate_host.push_back(cand.host_seconds);
        series.candidate_clocks.push_back(cand.sm_clock_mhz);
        if (baseline) {
            series.baseline.push_back(base.event_seconds);
            series.baseline_clocks.push_back(base.sm_clock_mhz);
        }
        series.measured += cand.event_seconds;
        const double wall = seconds_since(timing_start);
        verdict = request.timing.stopping.decide(series.candidate, series.measured, wall);
        // The speedups need every side pinned down, not only the candidate.
        auto settled = [&](const std::vector<double>& times) {
            return request.timing.stopping.decide(times, series.measured, wall) != StoppingRule::Verdict::Continue;
        };
        if (verdict == StoppingRule::Verdict::Converged || verdict == StoppingRule::Verdict::StandardError ||
            verdict == StoppingRule::Verdict::MedianPinned) {
            bool all = !baseline || settled(series.baseline);
            for (const auto& times : series.extras) all = all && settled(times);
            if (!all) verdict = StoppingRule::Verdict::Continue;
        }
        if (seconds_since(last_progress) > 0.5) {
            last_progress = Clock::now();
            c.channel.progress("timing", {{"samples", series.candidate.size()}, {"median_s", summarize(series.candidate).median}});
        }
    }

    auto host_summary = summarize(series.candidate_host);
    auto cand_summary = summarize(series.candidate);
    if (series.flagged_host * 4 > series.candidate.size())
        throw WorkerFailure(FailureClass::InvalidTiming,
                            "work outside the timed stream: the host clock (launch to device-wide sync) saw a median of " +
                                std::to_string(host_summary.median * 1e6) + " us per call while the events saw " +
                                std::to_string(cand_summary.median * 1e6) + " us (" + std::to_string(series.flagged_host) + " of " +
                                std::to_string(series.candidate.size()) + " samples)",
                            "timing");
    TimingOutcome outcome;
    outcome.candidate_median = cand_summary.median;
    nlohmann::json& timing = outcome.timing;
    timing = {{"candidate", summary_json(series.candidate, series.candidate_clocks)},
              {"candidate_host", host_summary.to_json()},
              {"stop_reason", verdict_name(verdict)},
              {"samples", series.candidate.size()},
              {"host_flagged_samples", series.flagged_host},
              {"throttled_samples", series.throttled},
              {"throttled_samples_discarded", series.discarded_throttled},
              {"checked_timed_outputs", checked_outputs},
              {"input_sets", sets},
              {"start", timed_start_name(start == TimedStart::Queued)},
              {"wall_seconds", seconds_since(timing_start)}};
    if (!start_fallback.empty())
        timing["start_fallback"] = "the " + start_fallback + " waited on the GPU inside kp_forward: queued starts are impossible";
    if (baseline) {
        outcome.baseline_median = summarize(series.baseline).median;
        timing["baseline"] = summary_json(series.baseline, series.baseline_clocks);
        timing["baseline_is_reference"] = sides.baseline_is_truth;
        if (outcome.candidate_median > 0) timing["speedup"] = outcome.baseline_median / outcome.candidate_median;
    }
    for (size_t e = 0; e < extras.size(); ++e) {
        timing["extra_baselines"][extras[e].first] = summary_json(series.extras[e], {});
        double em = summarize(series.extras[e]).median;
        if (outcome.candidate_median > 0) timing["extra_speedups"][extras[e].first] = em / outcome.candidate_median;
    }
    return outcome;
}

}  // namespace kp::worker
