#include "gpu/timeline.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include <nlohmann/json.hpp>

namespace kp::gpu {

namespace {

using nlohmann::json;

template <typename T>
T get_or(const json& j, const char* key, T fallback) {
    auto it = j.find(key);
    return (it == j.end() || it->is_null()) ? fallback : it->get<T>();
}

void read_dim3(const json& j, const char* key, int out[3]) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_array()) return;
    for (std::size_t i = 0; i < 3 && i < it->size(); ++i) out[i] = (*it)[i].get<int>();
}

const json& array_or_empty(const json& j, const char* key) {
    static const json empty = json::array();
    auto it = j.find(key);
    return (it == j.end() || !it->is_array()) ? empty : *it;
}

// Total length of the union of [start, end) intervals (kernels on different streams may overlap).
std::uint64_t union_length(std::vector<std::pair<std::uint64_t, std::uint64_t>> intervals) {
    std::sort(intervals.begin(), intervals.end());
    std::uint64_t total = 0, current_start = 0, current_end = 0;
    bool open = false;
    for (auto [start, end] : intervals) {
        if (!open || start > current_end) {
            if (open) total += current_end - current_start;
            current_start = start;
            current_end = end;
            open = true;
        } else {
            current_end = std::max(current_end, end);
        }
    }
    if (open) total += current_end - current_start;
    return total;
}

}  // namespace

Result<Timeline> parse_timeline_json(const std::string& text) {
    try {
        json j = json::parse(text);
        if (get_or<std::string>(j, "schema", "") != "kernelpro.timeline.v1")
            return make_error("not a kernelpro timeline (schema kernelpro.timeline.v1 expected)");
        Timeline t;
        t.dropped_records = get_or<std::uint64_t>(j, "dropped_records", 0);
        for (const auto& k : array_or_empty(j, "kernels")) {
            TimelineKernel kernel;
            kernel.name = get_or<std::string>(k, "name", "");
            kernel.start_ns = get_or<std::uint64_t>(k, "start_ns", 0);
            kernel.end_ns = get_or<std::uint64_t>(k, "end_ns", 0);
            kernel.device = get_or<std::uint32_t>(k, "device", 0);
            kernel.context = get_or<std::uint32_t>(k, "context", 0);
            kernel.stream = get_or<std::uint32_t>(k, "stream", 0);
            kernel.correlation_id = get_or<std::uint32_t>(k, "correlation_id", 0);
            read_dim3(k, "grid", kernel.grid);
            read_dim3(k, "block", kernel.block);
            kernel.registers_per_thread = get_or<int>(k, "registers_per_thread", 0);
            kernel.static_shared_bytes = get_or<int>(k, "static_shared_bytes", 0);
            kernel.dynamic_shared_bytes = get_or<int>(k, "dynamic_shared_bytes", 0);
            kernel.local_bytes_per_thread = get_or<std::uint32_t>(k, "local_bytes_per_thread", 0);
            t.kernels.push_back(std::move(kernel));
        }
        for (const auto& m : array_or_empty(j, "memcpys")) {
            TimelineMemcpy copy;
            copy.kind = get_or<std::string>(m, "kind", "unknown");
            copy.bytes = get_or<std::uint64_t>(m, "bytes", 0);
            copy.start_ns = get_or<std::uint64_t>(m, "start_ns", 0);
            copy.end_ns = get_or<std::uint64_t>(m, "end_ns", 0);
            copy.stream = get_or<std::uint32_t>(m, "stream", 0);
            copy.correlation_id = get_or<std::uint32_t>(m, "correlation_id", 0);
            t.memcpys.push_back(std::move(copy));
        }
        for (const auto& m : array_or_empty(j, "memsets")) {
            TimelineMemset set;
            set.bytes = get_or<std::uint64_t>(m, "bytes", 0);
            set.value = get_or<std::uint32_t>(m, "value", 0);
            set.start_ns = get_or<std::uint64_t>(m, "start_ns", 0);
            set.end_ns = get_or<std::uint64_t>(m, "end_ns", 0);
            set.stream = get_or<std::uint32_t>(m, "stream", 0);
            set.correlation_id = get_or<std::uint32_t>(m, "correlation_id", 0);
            t.memsets.push_back(set);
        }
        for (const auto& a : array_or_empty(j, "runtime_api")) {
            TimelineApiCall call;
            call.name = get_or<std::string>(a, "name", "");
            call.callback_id = get_or<std::uint32_t>(a, "callback_id", 0);
            call.start_ns = get_or<std::uint64_t>(a, "start_ns", 0);
            call.end_ns = get_or<std::uint64_t>(a, "end_ns", 0);
            call.correlation_id = get_or<std::uint32_t>(a, "correlation_id", 0);
            call.thread_id = get_or<std::uint32_t>(a, "thread_id", 0);
            t.runtime_api.push_back(std::move(call));
        }
        for (const auto& s : array_or_empty(j, "synchronizations")) {
            TimelineSynchronization sync;
            sync.type = get_or<std::string>(s, "type", "unknown");
            sync.start_ns = get_or<std::uint64_t>(s, "start_ns", 0);
            sync.end_ns = get_or<std::uint64_t>(s, "end_ns", 0);
            sync.stream = get_or<std::uint32_t>(s, "stream", 0);
            sync.correlation_id = get_or<std::uint32_t>(s, "correlation_id", 0);
            t.synchronizations.push_back(std::move(sync));
        }
        return t;
    } catch (const json::exception& e) {
        return make_error(std::string("timeline JSON is malformed: ") + e.what());
    }
}

DurationStats DurationStats::of(std::vector<std::uint64_t> values) {
    DurationStats s;
    s.count = values.size();
    if (values.empty()) return s;
    std::sort(values.begin(), values.end());
    for (auto v : values) s.total_ns += v;
    s.mean_ns = static_cast<double>(s.total_ns) / values.size();
    std::size_t mid = values.size() / 2;
    s.median_ns = values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2.0;
    s.min_ns = values.front();
    s.max_ns = values.back();
    return s;
}

TimelineSummary summarize_timeline(const Timeline& t, int calls) {
    TimelineSummary s;
    s.calls = std::max(calls, 1);
    s.kernel_launches = t.kernels.size();
    s.kernels_per_call = static_cast<double>(t.kernels.size()) / s.calls;
    s.dropped_records = t.dropped_records;

    // Per kernel name, in first-seen order, then sorted by total time.
    std::vector<std::string> order;
    std::unordered_map<std::string, std::vector<std::uint64_t>> durations_by_name;
    std::vector<std::uint64_t> all_durations;
    for (const auto& k : t.kernels) {
        auto [it, inserted] = durations_by_name.try_emplace(k.name);
        if (inserted) order.push_back(k.name);
        it->second.push_back(k.duration_ns());
        all_durations.push_back(k.duration_ns());
    }
    for (const auto& name : order) {
        const auto& durations = durations_by_name[name];
        s.kernels.push_back({name, static_cast<double>(durations.size()) / s.calls, DurationStats::of(durations)});
    }
    std::stable_sort(s.kernels.begin(), s.kernels.end(),
                     [](const KernelSummary& a, const KernelSummary& b) { return a.duration.total_ns > b.duration.total_ns; });
    s.kernel_duration = DurationStats::of(all_durations);

    // Gaps within each (device, context, stream), in start order.
    std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, std::vector<const TimelineKernel*>> by_stream;
    for (const auto& k : t.kernels) by_stream[{k.device, k.context, k.stream}].push_back(&k);
    std::vector<std::uint64_t> gaps;
    for (auto& [stream, kernels] : by_stream) {
        std::sort(kernels.begin(), kernels.end(), [](auto* a, auto* b) { return a->start_ns < b->start_ns; });
        for (std::size_t i = 1; i < kernels.size(); ++i)
            gaps.push_back(kernels[i]->start_ns > kernels[i - 1]->end_ns ? kernels[i]->start_ns - kernels[i - 1]->end_ns : 0);
    }
    s.launch_gaps = DurationStats::of(gaps);

    // Launch overhead: the runtime call and the kernel it launched share a correlation id.
    std::unordered_map<std::uint32_t, const TimelineApiCall*> api_by_correlation;
    for (const auto& call : t.runtime_api) api_by_correlation.emplace(call.correlation_id, &call);
    std::vector<std::uint64_t> overheads;
    for (const auto& k : t.kernels) {
        auto it = api_by_correlation.find(k.correlation_id);
        if (it == api_by_correlation.end() || k.correlation_id == 0) continue;
        // Host and GPU timestamps share CUPTI's clock; a kernel cannot start before its launch call.
        if (k.start_ns >= it->second->start_ns) overheads.push_back(k.start_ns - it->second->start_ns);
    }
    s.launch_overhead = DurationStats::of(overheads);

    for (const auto& m : t.memcpys) {
        auto& kind = s.memcpy_by_kind[m.kind];
        for (auto* total : {&kind, &s.memcpy_total}) {
            total->count += 1;
            total->bytes += m.bytes;
            total->total_ns += m.duration_ns();
        }
    }
    for (const auto& m : t.memsets) {
        s.memset_total.count += 1;
        s.memset_total.bytes += m.bytes;
        s.memset_total.total_ns += m.duration_ns();
    }
    for (const auto& call : t.runtime_api) {
        if (call.name.find("Synchronize") == std::string::npos) continue;
        s.host_synchronization_calls += 1;
        s.host_synchronization_ns += call.duration_ns();
    }

    if (!t.kernels.empty()) {
        std::uint64_t first = UINT64_MAX, last = 0;
        std::vector<std::pair<std::uint64_t, std::uint64_t>> intervals;
        for (const auto& k : t.kernels) {
            first = std::min(first, k.start_ns);
            last = std::max(last, k.end_ns);
            intervals.emplace_back(k.start_ns, std::max(k.start_ns, k.end_ns));
        }
        s.gpu_span_ns = last > first ? last - first : 0;
        s.kernel_busy_fraction = s.gpu_span_ns ? static_cast<double>(union_length(intervals)) / s.gpu_span_ns : 0.0;
    }
    return s;
}

void to_json(nlohmann::json& j, const DurationStats& s) {
    j = {{"count", s.count}, {"total_ns", s.total_ns}, {"mean_ns", s.mean_ns}, {"median_ns", s.median_ns},
         {"min_ns", s.min_ns}, {"max_ns", s.max_ns}};
}

namespace {
json transfer_json(const TransferSummary& t) {
    return {{"count", t.count}, {"bytes", t.bytes}, {"total_ns", t.total_ns}};
}
}  // namespace

void to_json(nlohmann::json& j, const TimelineSummary& s) {
    json kernels = json::array();
    for (const auto& k : s.kernels)
        kernels.push_back({{"name", k.name}, {"launches_per_call", k.launches_per_call}, {"duration", k.duration}});
    json by_kind = json::object();
    for (const auto& [kind, total] : s.memcpy_by_kind) by_kind[kind] = transfer_json(total);
    j = {{"calls", s.calls},
         {"kernel_launches", s.kernel_launches},
         {"kernels_per_call", s.kernels_per_call},
         {"kernels", kernels},
         {"kernel_duration", s.kernel_duration},
         {"launch_gaps", s.launch_gaps},
         {"launch_overhead", s.launch_overhead},
         {"memcpy_total", transfer_json(s.memcpy_total)},
         {"memcpy_by_kind", by_kind},
         {"memset_total", transfer_json(s.memset_total)},
         {"host_synchronization_ns", s.host_synchronization_ns},
         {"host_synchronization_calls", s.host_synchronization_calls},
         {"gpu_span_ns", s.gpu_span_ns},
         {"kernel_busy_fraction", s.kernel_busy_fraction},
         {"dropped_records", s.dropped_records}};
}

int TimelineSummary::launches_per_call() const { return static_cast<int>(std::lround(kernels_per_call)); }

double TimelineSummary::kernel_seconds_per_call() const { return kernel_duration.total_ns * 1e-9 / std::max(1, calls); }

double TimelineSummary::span_seconds_per_call() const { return gpu_span_ns * 1e-9 / std::max(1, calls); }

double TimelineSummary::memcpy_seconds_per_call() const { return memcpy_total.total_ns * 1e-9 / std::max(1, calls); }

int TimelineSummary::host_synchronizations_per_call() const {
    return static_cast<int>(std::lround(static_cast<double>(host_synchronization_calls) / std::max(1, calls)));
}

}  // namespace kp::gpu
