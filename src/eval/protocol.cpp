#include "eval/protocol.h"

namespace kp {

namespace {
nlohmann::json extra_baselines_json(const std::vector<NamedLibrary>& libraries) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& l : libraries) list.push_back({{"name", l.name}, {"library", l.library}});
    return list;
}
}  // namespace

nlohmann::json to_json(const WorkerRequest& r) {
    const auto& s = r.timing.stopping;
    return {{"protocol", kWorkerProtocol},
            {"mode", r.mode},
            {"task", r.task},
            {"reference_library", r.reference_library},
            {"reference_data_sets", r.reference_data_sets},
            {"baseline_library", r.baseline_library},
            {"extra_baselines", extra_baselines_json(r.extra_baselines)},
            {"candidate_library", r.candidate_library},
            {"launch_gate_library", r.launch_gate_library},
            {"seed", r.seed},
            {"trials", r.trials},
            {"timing",
             {{"enabled", r.timing.enabled}, {"warmup_calls", r.timing.warmup_calls}, {"input_sets", r.timing.input_sets},
              {"min_samples", s.min_samples}, {"max_samples", s.max_samples}, {"max_noise", s.max_noise}, {"max_standard_error", s.max_standard_error},
              {"max_median_interval", s.max_median_interval},
              {"min_seconds", s.min_seconds}, {"max_seconds", s.max_seconds}, {"host_factor", r.timing.host_factor},
              {"host_slack_seconds", r.timing.host_slack_seconds},
              {"start", timed_start_name(r.timing.queued_start)}}},
            {"energy",
             {{"enabled", r.energy.enabled}, {"windows", r.energy.windows}, {"min_window_seconds", r.energy.min_window_seconds},
              {"period_factor", r.energy.period_factor}, {"measure_baseline", r.energy.measure_baseline}}},
            {"call_timeout_seconds", r.call_timeout_seconds},
            {"profile_iterations", r.profile_iterations},
            {"profile_reference", r.profile_reference},
            {"counter_metrics", r.counter_metrics},
            {"counters_library", r.counters_library},
            {"max_kernels", r.max_kernels},
            {"trace_calls", r.trace_calls},
            {"pc_sampling", r.pc_sampling},
            {"pc_sampling_later", r.pc_sampling_later},
            {"follow_ups", r.follow_ups},
            {"variant", {{"poison_a", r.variant.poison_a}, {"poison_b", r.variant.poison_b}, {"layout", r.variant.layout}}},
            {"sandbox", sandbox::to_json(r.sandbox)},
            {"nonce", r.nonce}};
}

WorkerRequest worker_request_from_json(const nlohmann::json& j) {
    WorkerRequest r;
    r.mode = j.value("mode", r.mode);
    r.task = j.at("task");
    r.reference_library = j.value("reference_library", "");
    r.reference_data_sets = j.value("reference_data_sets", std::vector<std::string>{});
    r.baseline_library = j.value("baseline_library", "");
    for (const auto& l : j.value("extra_baselines", nlohmann::json::array()))
        r.extra_baselines.push_back({l.at("name").get<std::string>(), l.at("library").get<std::string>()});
    r.candidate_library = j.value("candidate_library", "");
    r.launch_gate_library = j.value("launch_gate_library", "");
    r.seed = j.value("seed", uint64_t{0});
    r.trials = j.value("trials", r.trials);
    r.call_timeout_seconds = j.value("call_timeout_seconds", r.call_timeout_seconds);
    r.profile_iterations = j.value("profile_iterations", r.profile_iterations);
    r.profile_reference = j.value("profile_reference", false);
    r.counter_metrics = j.value("counter_metrics", std::vector<std::string>{});
    r.counters_library = j.value("counters_library", "");
    r.max_kernels = j.value("max_kernels", r.max_kernels);
    r.trace_calls = j.value("trace_calls", r.trace_calls);
    r.pc_sampling = j.value("pc_sampling", r.pc_sampling);
    r.pc_sampling_later = j.value("pc_sampling_later", r.pc_sampling_later);
    r.follow_ups = j.value("follow_ups", r.follow_ups);
    if (j.contains("variant") && j["variant"].is_object()) {
        const auto& v = j["variant"];
        r.variant.poison_a = v.value("poison_a", r.variant.poison_a);
        r.variant.poison_b = v.value("poison_b", r.variant.poison_b);
        r.variant.layout = v.value("layout", r.variant.layout);
    }
    r.sandbox = sandbox::sandbox_settings_from_json(j.value("sandbox", nlohmann::json::object()));
    r.nonce = j.value("nonce", "");
    if (j.contains("timing")) {
        const auto& t = j["timing"];
        auto& s = r.timing.stopping;
        r.timing.enabled = t.value("enabled", r.timing.enabled);
        r.timing.warmup_calls = t.value("warmup_calls", r.timing.warmup_calls);
        r.timing.input_sets = t.value("input_sets", r.timing.input_sets);
        s.min_samples = t.value("min_samples", s.min_samples);
        s.max_samples = t.value("max_samples", s.max_samples);
        s.max_noise = t.value("max_noise", s.max_noise);
        s.max_standard_error = t.value("max_standard_error", s.max_standard_error);
        s.max_median_interval = t.value("max_median_interval", s.max_median_interval);
        s.min_seconds = t.value("min_seconds", s.min_seconds);
        s.max_seconds = t.value("max_seconds", s.max_seconds);
        r.timing.host_factor = t.value("host_factor", r.timing.host_factor);
        r.timing.host_slack_seconds = t.value("host_slack_seconds", r.timing.host_slack_seconds);
        r.timing.queued_start = t.value("start", std::string(timed_start_name(r.timing.queued_start))) == timed_start_name(true);
    }
    if (j.contains("energy")) {
        const auto& e = j["energy"];
        r.energy.enabled = e.value("enabled", r.energy.enabled);
        r.energy.windows = e.value("windows", r.energy.windows);
        r.energy.min_window_seconds = e.value("min_window_seconds", r.energy.min_window_seconds);
        r.energy.period_factor = e.value("period_factor", r.energy.period_factor);
        r.energy.measure_baseline = e.value("measure_baseline", r.energy.measure_baseline);
    }
    return r;
}

nlohmann::json to_json(const CountingAsk& a) {
    return {{"counter_metrics", a.counter_metrics},
            {"max_kernels", a.max_kernels},
            {"trace_calls", a.trace_calls},
            {"pc_sampling", a.pc_sampling},
            {"call_seconds", a.call_seconds}};
}

CountingAsk counting_ask_from_json(const nlohmann::json& j, const CountingAsk& defaults) {
    CountingAsk a = defaults;
    a.counter_metrics = j.value("counter_metrics", a.counter_metrics);
    a.max_kernels = j.value("max_kernels", a.max_kernels);
    a.trace_calls = j.value("trace_calls", a.trace_calls);
    a.pc_sampling = j.value("pc_sampling", a.pc_sampling);
    a.call_seconds = j.value("call_seconds", a.call_seconds);
    return a;
}

}  // namespace kp
