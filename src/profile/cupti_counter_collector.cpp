#include "profile/cupti_counter_collector.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "eval/worker_client.h"
#include "gpu/counters/kp_counters.h"
#include "gpu/dynamic_library.h"
#include "profile/kernel_names.h"
#include "profile/ncu_collector.h"
#include "common/stopwatch.h"
#include "common/utf8.h"

namespace kp::profile {

namespace {

using nlohmann::json;

MetricValue number(double v) { return MetricValue{v, ""}; }

// A share of a peak cannot pass 100%, but CUPTI's value, a ratio of counters summed over the
// replayed passes, can: warp_list_walk's achieved occupancy (one full wave) read 108% on the H200
// on 2026-12-07 (99% on 2026-12-02, ncu 89%). Such a value is read as the peak itself.
double share_of_peak(const std::string& metric, double value) {
    return metric.find(".pct_of_peak_sustained") != std::string::npos ? std::clamp(value, 0.0, 100.0) : value;
}

std::string dims_text(const json& d) {
    if (!d.is_array() || d.size() != 3) return "";
    return fmt::format("({}, {}, {})", d[0].get<long>(), d[1].get<long>(), d[2].get<long>());
}

long dims_product(const json& d) {
    long p = 1;
    for (const auto& v : d) p *= v.get<long>();
    return p;
}

// launch__* as ncu names them, from one launch record.
void add_launch_metrics(KernelMetrics& k, const json& launch, const json& device, const gpu::OccupancyLimits& limits,
                        std::vector<std::string>& notes) {
    const long threads = dims_product(launch.at("block"));
    const long blocks = dims_product(launch.at("grid"));
    const int registers = launch.value("registers", 0);
    const long static_shared = launch.value("static_shared_bytes", 0L), dynamic_shared = launch.value("dynamic_shared_bytes", 0L);
    const int sms = device.value("sm_count", 0);
    k.block = dims_text(launch["block"]);
    k.grid = dims_text(launch["grid"]);
    auto& m = k.metrics;
    m["launch__block_size"] = number(static_cast<double>(threads));
    m["launch__grid_size"] = number(static_cast<double>(blocks));
    if (sms > 0) {
        m["launch__sm_count"] = number(sms);
        m["device__attribute_multiprocessor_count"] = number(sms);
    }
    if (launch.contains("attribute_error")) {  // no registers or shared memory: no occupancy either
        notes.push_back(kernel_base_name(k.name) + ": no function attributes (" + launch["attribute_error"].get<std::string>() + ")");
        return;
    }
    m["launch__registers_per_thread"] = number(registers);
    m["launch__shared_mem_per_block_static"] = number(static_cast<double>(static_shared));
    m["launch__shared_mem_per_block_dynamic"] = number(static_cast<double>(dynamic_shared));
    m["launch__shared_mem_per_block"] =
        number(static_cast<double>(static_shared + dynamic_shared + limits.reserved_shared_memory_per_block));
    const int driver_blocks = launch.value("driver_max_active_blocks", 0);
    auto occupancy = gpu::compute_occupancy(limits, {static_cast<int>(threads), registers, static_shared, dynamic_shared});
    if (occupancy) {
        m["launch__occupancy_limit_warps"] = number(occupancy->blocks_limit_warps);
        m["launch__occupancy_limit_registers"] = number(occupancy->blocks_limit_registers);
        m["launch__occupancy_limit_shared_mem"] = number(occupancy->blocks_limit_shared_memory);
        m["launch__occupancy_limit_blocks"] = number(occupancy->blocks_limit_blocks);
        if (driver_blocks > 0 && driver_blocks != occupancy->active_blocks_per_sm)
            notes.push_back(fmt::format("{}: the driver allows {} blocks per SM, our occupancy calculator {}; the "
                                        "per-resource limits are the calculator's",
                                        kernel_base_name(k.name), driver_blocks, occupancy->active_blocks_per_sm));
    } else {
        notes.push_back(kernel_base_name(k.name) + ": occupancy: " + occupancy.error().message);
    }
    const int per_sm = driver_blocks > 0 ? driver_blocks : (occupancy ? occupancy->active_blocks_per_sm : 0);
    if (per_sm > 0 && sms > 0) m["launch__waves_per_multiprocessor"] = number(static_cast<double>(blocks) / (per_sm * sms));
}

}  // namespace

bool is_counted_metric(const std::string& metric) {
    return !(metric.starts_with("launch__") || metric.starts_with("device__") || metric.starts_with("profiler__"));
}

std::vector<std::string> counted_metrics(const std::vector<std::string>& metrics) {
    std::vector<std::string> counted;
    for (const auto& m : metrics)
        if (is_counted_metric(m)) counted.push_back(m);
    std::sort(counted.begin(), counted.end());
    counted.erase(std::unique(counted.begin(), counted.end()), counted.end());
    return counted;
}

Result<CounterResult> counter_result_from_reply(const json& reply, const gpu::OccupancyLimits& limits) {
    if (!reply.is_object()) return make_error("counters: the worker's reply is not an object");
    if (reply.contains("error")) {
        std::string message = reply["error"].get<std::string>();
        if (reply.contains("unsupported")) {
            std::vector<std::string> names = reply["unsupported"];
            message += ": " + fmt::format("{}", fmt::join(names, ", "));
        }
        return make_error("counters (" + reply.value("stage", std::string("?")) + "): " + message);
    }
    CounterResult result;
    result.reply = reply;
    result.passes = reply.value("passes", 0);
    result.chip = reply.value("chip", "");
    const json& ranges = reply.at("ranges");
    const json launches = reply.value("launches", json::array());
    const json device = reply.value("device", json::object());
    // Launches past the worker's max_kernels get launch records but no range (CUPTI counts only
    // ranges it dropped itself): both are launches the counters did not see.
    const int dropped = reply.value("dropped_ranges", 0);
    const size_t unranged = launches.size() > ranges.size() ? launches.size() - ranges.size() : 0;
    if (dropped > 0 || unranged > 0)
        result.notes.push_back(fmt::format("counters: {} kernel launches past the limit were not profiled (the first {} were)",
                                           std::max<size_t>(static_cast<size_t>(std::max(dropped, 0)), unranged), ranges.size()));
    if (reply.contains("launch_note")) result.notes.push_back("counters: no launch records (" + reply["launch_note"].get<std::string>() + ")");
    if (!launches.empty() && launches.size() < ranges.size())
        result.notes.push_back(fmt::format("counters: {} ranges but {} launch records; names and launch "
                                           "configurations are matched in order",
                                           ranges.size(), launches.size()));
    for (size_t i = 0; i < ranges.size(); ++i) {
        KernelMetrics k;
        k.id = static_cast<int>(i);
        k.name = i < launches.size() ? demangle(launches[i].value("name", "")) : "";
        if (k.name.empty()) k.name = fmt::format("kernel {}", i);
        k.device = result.chip;
        for (const auto& [name, value] : ranges[i].at("metrics").items())
            if (value.is_number()) k.metrics[name] = number(share_of_peak(name, value.get<double>()));
        k.metrics[kReplayPassesMetric] = number(result.passes);
        if (i < launches.size()) add_launch_metrics(k, launches[i], device, limits, result.notes);
        result.kernels.push_back(std::move(k));
    }
    if (reply.contains("timeline")) {
        auto timeline = gpu::parse_timeline_json(reply["timeline"].dump());
        if (timeline) {
            result.timeline = std::move(*timeline);
            result.traced_calls = reply["timeline"].value("calls", 1);
        } else {
            result.timeline_error = "the traced calls' timeline: " + timeline.error().message;
        }
    } else if (reply.contains("timeline_error")) {
        result.timeline_error = reply["timeline_error"].get<std::string>();
    }
    if (reply.contains("pc_sampling")) {
        auto sampling = pc_sampling_from_json(reply["pc_sampling"]);
        if (sampling) result.pc_sampling = std::move(*sampling);
        else result.pc_sampling_error = sampling.error().message;
    } else if (reply.contains("pc_sampling_error")) {
        result.pc_sampling_error = reply["pc_sampling_error"].get<std::string>();
    }
    return result;
}

Result<CounterPlan> plan_counters(const std::filesystem::path& counters_library, const std::string& chip,
                                  const std::vector<std::string>& metrics) {
    // Never closed: the library loads CUPTI, which must not be unloaded under its own exit handlers.
    auto library = gpu::DynamicLibrary::open({counters_library.string()}, gpu::DynamicLibrary::Lifetime::process);
    if (!library) return make_error("cannot open " + library.error().message);
    decltype(&kp_counters_plan) plan = nullptr;
    decltype(&kp_counters_free) release = nullptr;
    if (!library->bind(plan, "kp_counters_plan") || !library->bind(release, "kp_counters_free"))
        return make_error(counters_library.string() + " is not a kernelpro counters library");
    const std::vector<std::string> counted = counted_metrics(metrics);
    char* text = plan(json{{"chip", chip}, {"metrics", counted}}.dump().c_str());
    json reply = json::parse(text ? text : "null", nullptr, false);
    release(text);
    if (!reply.is_object()) return make_error("the counters library answered no JSON");
    if (reply.contains("error")) return make_error("counters plan: " + reply["error"].get<std::string>());
    return CounterPlan{reply.value("passes", 0), reply.value("unsupported", std::vector<std::string>{})};
}

CuptiCounterCollector::CuptiCounterCollector(std::optional<CollectorCache> cache) : cache_(std::move(cache)) {}
CuptiCounterCollector::CuptiCounterCollector(CuptiCounterCollector&&) noexcept = default;
CuptiCounterCollector& CuptiCounterCollector::operator=(CuptiCounterCollector&&) noexcept = default;
CuptiCounterCollector::~CuptiCounterCollector() { (void)close(); }

CollectorCost CuptiCounterCollector::cost(const CounterRequest& request) const {
    const std::vector<std::string> counted = counted_metrics(request.metrics);
    CollectorCost c;
    c.replay_passes = estimate_ncu_replay_passes(counted, {}, false);
    c.seconds = request.program_seconds + 0.3 + (c.replay_passes + request.trace_calls + (request.pc_sampling ? 1 : 0)) * (request.call_seconds + 2e-3);
    return c;
}

namespace {

// How a worker ended when it gave no (more) answer, as an error; nothing when it ended well.
Status ending_error(const Result<WorkerOutcome>& ended) {
    if (!ended) return ended.error();
    if (ended->status == FailureClass::Ok) return {};
    return make_error(fmt::format("counters: the worker failed ({}, {}): {}", failure_class_name(ended->status), ended->phase,
                                  ended->message));
}

}  // namespace

Status CuptiCounterCollector::close() {
    if (!open_) return {};
    auto conversation = std::move(open_);
    return ending_error(conversation->finish());
}

// The worker's reply to one collection: a follow-up of the open worker, or a fresh worker's.
Result<json> CuptiCounterCollector::ask_worker(const CounterRequest& request, const std::vector<std::string>& counted) {
    // A worker that gives no answer: how it ended says why.
    auto no_answer = [](WorkerConversation& c) -> Result<json> {
        auto ended = ending_error(c.finish());
        return ended ? make_error("counters: the worker ended without answering the collection") : ended.error();
    };
    std::unique_ptr<WorkerConversation> conversation = std::move(open_);
    if (conversation) {
        const CountingAsk follow_up{counted, request.max_kernels, request.trace_calls, request.pc_sampling, request.call_seconds};
        if (!conversation->send(to_json(follow_up))) return no_answer(*conversation);
    } else {
        WorkerRequest worker = request.worker;
        worker.mode = "profile_counters";
        worker.counter_metrics = counted;
        worker.counters_library = request.counters_library.string();
        worker.max_kernels = request.max_kernels;
        worker.trace_calls = request.trace_calls;
        worker.pc_sampling = request.pc_sampling;
        worker.pc_sampling_later = request.pc_sampling_later;
        worker.follow_ups = request.keep_open;
        WorkerOptions options;
        options.worker_executable = request.worker_executable;
        options.total_limit = request.timeout;
        options.environment = request.environment;
        auto started = WorkerConversation::start(worker, options);
        if (!started) return started.error();
        conversation = std::make_unique<WorkerConversation>(std::move(*started));
        if (!request.keep_open) {  // a worker without follow-ups answers with its result
            auto outcome = conversation->finish();
            if (auto failed = ending_error(outcome); !failed) return failed.error();
            return outcome->result.value("counters", json());
        }
    }
    auto reply = conversation->next_collection();
    if (!reply) return no_answer(*conversation);
    open_ = std::move(conversation);
    if (!request.keep_open)
        if (auto closed = close(); !closed) return closed.error();
    return *reply;
}

Result<CounterResult> CuptiCounterCollector::collect(const CounterRequest& request) {
    const std::vector<std::string> counted = counted_metrics(request.metrics);
    // A follow-up may only sample or trace (the counters are in hand).
    if (counted.empty() && !request.pc_sampling && request.trace_calls <= 0) return make_error("counters: no counted metric asked for");
    const std::string key = request.cache_key.empty()
                                ? ""
                                : CollectorCache::make_key({name(), request.cache_key, fmt::format("{}", fmt::join(counted, ",")),
                                                            std::to_string(request.max_kernels),
                                                            "trace=" + std::to_string(request.trace_calls),
                                                            request.pc_sampling ? "pcs" : "no-pcs"});
    if (cache_ && !key.empty() && !request.refresh_cache)
        if (auto text = cache_->load(key)) {
            json cached = json::parse(*text, nullptr, false);
            if (auto r = counter_result_from_reply(cached, request.limits)) {
                r->from_cache = true;
                return r;
            }
        }

    const auto started = std::chrono::steady_clock::now();
    auto asked = ask_worker(request, counted);
    const double worker_seconds = seconds_since(started);
    if (!asked) return asked.error();
    json reply = std::move(*asked);
    // The worker times what it does once running; the rest (process start, CUDA context, module
    // loads and exit for a fresh worker; the round trip for a follow-up) is "process", so the
    // phases add up to the collection's wall time.
    if (reply.is_object() && reply.contains("seconds") && reply["seconds"].is_object()) {
        double phases = 0;
        for (const auto& [phase, value] : reply["seconds"].items())
            if (value.is_number() && phase != "total") phases += value.get<double>();
        reply["seconds"]["process"] = std::max(0.0, worker_seconds - phases);
    }
    auto result = counter_result_from_reply(reply, request.limits);
    if (!result) return result.error();
    if (cache_ && !key.empty()) (void)cache_->store(key, dump_json(reply));  // a failed write only costs a re-run later
    return result;
}

}  // namespace kp::profile
