// libkp_counters.so (see kp_counters.h): CUPTI's range profiler in user-replay, auto-range mode.
// Every kernel launch of a call is one range; the caller's run_call() replays the whole call once
// per pass until CUPTI has every counter. A driver-API callback records each launch of the first
// pass (function, grid, block, shared memory), and after the passes the driver's occupancy API
// answers for that launch: what ncu reports as launch__*, here without ncu.
#include "gpu/counters/kp_counters.h"

#include <cuda.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include "common/stopwatch.h"
#include "gpu/dynamic_library.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>
#include "gpu/counters/c_reply.h"

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;
using kp::seconds_since;

struct CountersError : std::runtime_error {
    CountersError(const std::string& stage, const std::string& message) : std::runtime_error(message), stage(stage) {}
    std::string stage;
};

// The driver API, from the libcuda the host process already loaded: linking it would keep this
// library from loading where there is no driver (CI uses kp_counters_plan there).
struct DriverApi {
    decltype(&::cuCtxGetCurrent) cuCtxGetCurrent = nullptr;
    decltype(&::cuCtxGetDevice) cuCtxGetDevice = nullptr;
    decltype(&::cuGetErrorString) cuGetErrorString = nullptr;
    decltype(&::cuDeviceGetAttribute) cuDeviceGetAttribute = nullptr;
    decltype(&::cuFuncGetAttribute) cuFuncGetAttribute = nullptr;
    decltype(&::cuFuncGetName) cuFuncGetName = nullptr;
    decltype(&::cuOccupancyMaxActiveBlocksPerMultiprocessor) cuOccupancyMaxActiveBlocksPerMultiprocessor = nullptr;
    decltype(&::cuKernelGetFunction) cuKernelGetFunction = nullptr;
};

const DriverApi& driver();

std::string cupti_text(CUptiResult result) {
    const char* text = nullptr;
    cuptiGetResultString(result, &text);
    return text ? text : ("CUPTI error " + std::to_string(static_cast<int>(result)));
}

void check(CUptiResult result, const char* stage) {
    if (result != CUPTI_SUCCESS) throw CountersError(stage, std::string(stage) + ": " + cupti_text(result));
}

void check(CUresult result, const char* stage) {
    if (result == CUDA_SUCCESS) return;
    const char* text = nullptr;
    driver().cuGetErrorString(result, &text);
    throw CountersError(stage, std::string(stage) + ": " + (text ? text : "CUDA error " + std::to_string(result)));
}

const DriverApi& driver() {
    static const DriverApi api = [] {
        DriverApi a;
        // The host program's libcuda (the worker's CUDA runtime loaded it), else a fresh one.
        auto library = kp::gpu::DynamicLibrary::find_loaded("libcuda.so.1");
        if (!library) library = kp::gpu::DynamicLibrary::open({"libcuda.so.1"}, kp::gpu::DynamicLibrary::Lifetime::process);
        if (!library) throw CountersError("driver", "cannot open " + library.error().message);
        auto load = [&](auto& fn, const char* name) {
            if (!library->bind(fn, name)) throw CountersError("driver", std::string("libcuda.so.1 lacks ") + name);
        };
        load(a.cuCtxGetCurrent, "cuCtxGetCurrent");
        load(a.cuCtxGetDevice, "cuCtxGetDevice");
        load(a.cuGetErrorString, "cuGetErrorString");
        load(a.cuDeviceGetAttribute, "cuDeviceGetAttribute");
        load(a.cuFuncGetAttribute, "cuFuncGetAttribute");
        load(a.cuFuncGetName, "cuFuncGetName");
        load(a.cuOccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
        load(a.cuKernelGetFunction, "cuKernelGetFunction");
        return a;
    }();
    return api;
}

std::vector<const char*> c_names(const std::vector<std::string>& names) {
    std::vector<const char*> out;
    for (const auto& n : names) out.push_back(n.c_str());
    return out;
}

// Deinitializes a CUPTI host object; as a unique_ptr's deleter it also runs when a constructor
// throws after the object was made.
struct HostObjectRelease {
    void operator()(CUpti_Profiler_Host_Object* host) const {
        CUpti_Profiler_Host_Deinitialize_Params done{CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
        done.pHostObject = host;
        cuptiProfilerHostDeinitialize(&done);
    }
};

// The host side: which counters a set of metrics needs on one chip, scheduled into passes (the
// config image), and the metrics' values evaluated from a filled counter-data image.
class MetricConfig {
public:
    MetricConfig(const std::string& chip, const std::vector<std::string>& metrics, const std::vector<uint8_t>* availability)
        : metrics_(metrics) {
        CUpti_Profiler_Host_Initialize_Params init{CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
        init.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
        init.pChipName = chip.c_str();
        init.pCounterAvailabilityImage = availability && !availability->empty() ? availability->data() : nullptr;
        check(cuptiProfilerHostInitialize(&init), "cuptiProfilerHostInitialize");
        host_.reset(init.pHostObject);
        auto names = c_names(metrics);
        CUpti_Profiler_Host_ConfigAddMetrics_Params add{CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
        add.pHostObject = host_.get();
        add.ppMetricNames = names.data();
        add.numMetrics = names.size();
        check(cuptiProfilerHostConfigAddMetrics(&add), "cuptiProfilerHostConfigAddMetrics");
        CUpti_Profiler_Host_GetConfigImageSize_Params size{CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
        size.pHostObject = host_.get();
        check(cuptiProfilerHostGetConfigImageSize(&size), "cuptiProfilerHostGetConfigImageSize");
        image_.resize(size.configImageSize);
        CUpti_Profiler_Host_GetConfigImage_Params get{CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
        get.pHostObject = host_.get();
        get.configImageSize = image_.size();
        get.pConfigImage = image_.data();
        check(cuptiProfilerHostGetConfigImage(&get), "cuptiProfilerHostGetConfigImage");
    }
    const std::vector<uint8_t>& image() const { return image_; }

    size_t passes() {
        CUpti_Profiler_Host_GetNumOfPasses_Params p{CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
        p.configImageSize = image_.size();
        p.pConfigImage = image_.data();
        check(cuptiProfilerHostGetNumOfPasses(&p), "cuptiProfilerHostGetNumOfPasses");
        return p.numOfPasses;
    }

    json evaluate(const std::vector<uint8_t>& counter_data, size_t range) {
        auto names = c_names(metrics_);
        std::vector<double> values(names.size(), 0.0);
        CUpti_Profiler_Host_EvaluateToGpuValues_Params p{CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
        p.pHostObject = host_.get();
        p.pCounterDataImage = counter_data.data();
        p.counterDataImageSize = counter_data.size();
        p.rangeIndex = range;
        p.ppMetricNames = names.data();
        p.numMetrics = names.size();
        p.pMetricValues = values.data();
        check(cuptiProfilerHostEvaluateToGpuValues(&p), "cuptiProfilerHostEvaluateToGpuValues");
        json out = json::object();
        for (size_t i = 0; i < metrics_.size(); ++i) out[metrics_[i]] = values[i];
        return out;
    }

private:
    std::vector<std::string> metrics_;
    std::unique_ptr<CUpti_Profiler_Host_Object, HostObjectRelease> host_;
    std::vector<uint8_t> image_;
};

// Metrics the chip cannot count, tried one at a time (ConfigAddMetrics fails for the whole list
// without saying which).
std::vector<std::string> unsupported_metrics(const std::string& chip, const std::vector<std::string>& metrics,
                                             const std::vector<uint8_t>* availability) {
    std::vector<std::string> out;
    for (const auto& m : metrics) {
        try {
            MetricConfig one(chip, {m}, availability);
        } catch (const CountersError&) {
            out.push_back(m);
        }
    }
    return out;
}

// A metric config for the request, or an error that names what this chip cannot count.
struct PlannedConfig {
    std::unique_ptr<MetricConfig> config;
    std::vector<std::string> unsupported;
};
PlannedConfig plan(const std::string& chip, const std::vector<std::string>& metrics, const std::vector<uint8_t>* availability) {
    PlannedConfig p;
    try {
        p.config = std::make_unique<MetricConfig>(chip, metrics, availability);
    } catch (const CountersError&) {
        p.unsupported = unsupported_metrics(chip, metrics, availability);
        if (p.unsupported.empty()) throw;
    }
    return p;
}

// Launches seen by the driver-API callback while `recording`; attributes are read after the passes
// (a callback should not call back into the driver).
struct Launch {
    CUfunction function = nullptr;  // with the runtime's lazy loading, a CUkernel passed as one
    unsigned grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
    unsigned dynamic_shared = 0;
    std::string name;               // CUPTI's symbol name for launch callbacks (mangled)
};
struct LaunchRecorder {
    std::vector<Launch> launches;
    bool recording = false;
};

void CUPTIAPI on_driver_call(void* user, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
    auto* recorder = static_cast<LaunchRecorder*>(user);
    const auto* info = static_cast<const CUpti_CallbackData*>(data);
    if (!recorder->recording || domain != CUPTI_CB_DOMAIN_DRIVER_API || info->callbackSite != CUPTI_API_ENTER) return;
    Launch l;
    switch (id) {
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
            // The cooperative launch's parameters start with the same fields.
            const auto* p = static_cast<const cuLaunchKernel_params*>(info->functionParams);
            l = {p->f, {p->gridDimX, p->gridDimY, p->gridDimZ}, {p->blockDimX, p->blockDimY, p->blockDimZ}, p->sharedMemBytes, ""};
            break;
        }
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
            const auto* p = static_cast<const cuLaunchKernelEx_params*>(info->functionParams);
            if (!p->config) return;
            const CUlaunchConfig& c = *p->config;
            l = {p->f, {c.gridDimX, c.gridDimY, c.gridDimZ}, {c.blockDimX, c.blockDimY, c.blockDimZ}, c.sharedMemBytes, ""};
            break;
        }
        default:
            return;
    }
    if (info->symbolName) l.name = info->symbolName;  // valid only during the callback: copied
    recorder->launches.push_back(l);
}

// The launch's function attributes and the driver's occupancy for its configuration. The runtime
// (CUDA 12+, lazy loading) launches CUkernel handles through cuLaunchKernel: the attribute calls
// need the context's CUfunction for it, so a handle the driver rejects is resolved once that way.
json describe_launch(const Launch& l) {
    CUfunction f = l.function;
    int registers = 0;
    CUresult status = driver().cuFuncGetAttribute(&registers, CU_FUNC_ATTRIBUTE_NUM_REGS, f);
    if (status != CUDA_SUCCESS) {
        CUfunction resolved = nullptr;
        if (driver().cuKernelGetFunction(&resolved, reinterpret_cast<CUkernel>(l.function)) == CUDA_SUCCESS && resolved) {
            f = resolved;
            status = driver().cuFuncGetAttribute(&registers, CU_FUNC_ATTRIBUTE_NUM_REGS, f);
        }
    }
    auto attribute = [&](CUfunction_attribute a) {
        int value = 0;
        driver().cuFuncGetAttribute(&value, a, f);
        return value;
    };
    std::string name = l.name;
    if (const char* n = nullptr; name.empty() && driver().cuFuncGetName(&n, f) == CUDA_SUCCESS && n) name = n;
    int threads = static_cast<int>(l.block[0] * l.block[1] * l.block[2]);
    int max_blocks = 0;
    driver().cuOccupancyMaxActiveBlocksPerMultiprocessor(&max_blocks, f, threads, l.dynamic_shared);
    json out = {{"name", name},
                {"grid", {l.grid[0], l.grid[1], l.grid[2]}},
                {"block", {l.block[0], l.block[1], l.block[2]}},
                {"dynamic_shared_bytes", l.dynamic_shared},
                {"static_shared_bytes", attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)},
                {"local_bytes", attribute(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)},
                {"registers", registers},
                {"driver_max_active_blocks", max_blocks}};
    if (status != CUDA_SUCCESS) {
        const char* text = nullptr;
        driver().cuGetErrorString(status, &text);
        out["attribute_error"] = std::string("cuFuncGetAttribute: ") + (text ? text : std::to_string(status));
    }
    return out;
}

json device_attributes(CUdevice device) {
    auto attribute = [&](CUdevice_attribute a) {
        int v = 0;
        driver().cuDeviceGetAttribute(&v, a, device);
        return v;
    };
    return {{"sm_count", attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)},
            {"max_threads_per_sm", attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)},
            {"max_blocks_per_sm", attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR)},
            {"registers_per_sm", attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR)},
            {"shared_memory_per_sm", attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)},
            {"reserved_shared_memory_per_block", attribute(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK)}};
}

// Owns the range profiler on a context, and the callback subscription, for one collection.
class RangeSession {
public:
    explicit RangeSession(CUcontext ctx) {
        CUpti_RangeProfiler_Enable_Params enable{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
        enable.ctx = ctx;
        check(cuptiRangeProfilerEnable(&enable), "cuptiRangeProfilerEnable");
        object_ = enable.pRangeProfilerObject;
    }
    ~RangeSession() {
        if (subscriber_) cuptiUnsubscribe(subscriber_);
        CUpti_RangeProfiler_Disable_Params disable{CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
        disable.pRangeProfilerObject = object_;
        cuptiRangeProfilerDisable(&disable);
    }
    RangeSession(const RangeSession&) = delete;
    RangeSession& operator=(const RangeSession&) = delete;

    CUpti_RangeProfiler_Object* object() const { return object_; }

    // Launch records are a bonus: another CUPTI subscriber (a tracer) may hold the only slot.
    std::string record_launches(LaunchRecorder& recorder) {
        CUptiResult r = cuptiSubscribe(&subscriber_, on_driver_call, &recorder);
        if (r != CUPTI_SUCCESS) {
            subscriber_ = nullptr;
            return "cuptiSubscribe: " + cupti_text(r);
        }
        r = cuptiEnableDomain(1, subscriber_, CUPTI_CB_DOMAIN_DRIVER_API);
        return r == CUPTI_SUCCESS ? "" : "cuptiEnableDomain: " + cupti_text(r);
    }

private:
    CUpti_RangeProfiler_Object* object_ = nullptr;
    CUpti_SubscriberHandle subscriber_ = nullptr;
};

json collect(const json& request, kp_counters_step prepare, kp_counters_step call, void* user) {
    const auto metrics = request.at("metrics").get<std::vector<std::string>>();
    if (metrics.empty()) throw CountersError("request", "no metrics asked for");
    const size_t max_ranges = std::max<size_t>(1, request.value("max_ranges", size_t{16}));
    json reply = {{"seconds", json::object()}};
    auto start = Clock::now();

    CUcontext ctx = nullptr;
    check(driver().cuCtxGetCurrent(&ctx), "cuCtxGetCurrent");
    if (!ctx) throw CountersError("context", "no current CUDA context");
    CUdevice device = 0;
    check(driver().cuCtxGetDevice(&device), "cuCtxGetDevice");
    reply["device"] = device_attributes(device);

    CUpti_Profiler_Initialize_Params init{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    check(cuptiProfilerInitialize(&init), "cuptiProfilerInitialize");
    CUpti_Device_GetChipName_Params chip_params{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    chip_params.deviceIndex = static_cast<size_t>(device);
    check(cuptiDeviceGetChipName(&chip_params), "cuptiDeviceGetChipName");
    const std::string chip = chip_params.pChipName;
    reply["chip"] = chip;
    // Where the set-up goes (its parts are an object, so the profile's phase sum skips them).
    json setup_parts = json::object();
    kp::PhaseClock setup_clock(start);
    auto part = [&](const char* name) { setup_parts[name] = setup_clock.lap(); };
    part("initialize");

    // Counters this context can use now (others may be taken, e.g. by a running profiler).
    std::vector<uint8_t> availability;
    CUpti_Profiler_GetCounterAvailability_Params avail{CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
    avail.ctx = ctx;
    check(cuptiProfilerGetCounterAvailability(&avail), "cuptiProfilerGetCounterAvailability");
    availability.resize(avail.counterAvailabilityImageSize);
    avail.pCounterAvailabilityImage = availability.data();
    check(cuptiProfilerGetCounterAvailability(&avail), "cuptiProfilerGetCounterAvailability");

    PlannedConfig planned = plan(chip, metrics, &availability);
    if (!planned.config) {
        reply["error"] = "this GPU (" + chip + ") cannot count " + std::to_string(planned.unsupported.size()) + " of the metrics";
        reply["stage"] = "config";
        reply["unsupported"] = planned.unsupported;
        return reply;
    }
    MetricConfig& config = *planned.config;
    const size_t planned_passes = config.passes();
    reply["planned_passes"] = planned_passes;
    part("plan");

    RangeSession session(ctx);
    CUpti_RangeProfiler_GetCounterDataSize_Params size{CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    auto names = c_names(metrics);
    size.pRangeProfilerObject = session.object();
    size.pMetricNames = names.data();
    size.numMetrics = names.size();
    size.maxNumOfRanges = max_ranges;
    size.maxNumRangeTreeNodes = static_cast<uint32_t>(max_ranges);
    check(cuptiRangeProfilerGetCounterDataSize(&size), "cuptiRangeProfilerGetCounterDataSize");
    std::vector<uint8_t> counter_data(size.counterDataSize);
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params image{CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    image.pRangeProfilerObject = session.object();
    image.counterDataSize = counter_data.size();
    image.pCounterData = counter_data.data();
    check(cuptiRangeProfilerCounterDataImageInitialize(&image), "cuptiRangeProfilerCounterDataImageInitialize");
    part("session");

    CUpti_RangeProfiler_SetConfig_Params set{CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    set.pRangeProfilerObject = session.object();
    set.configSize = config.image().size();
    set.pConfig = config.image().data();
    set.counterDataImageSize = counter_data.size();
    set.pCounterDataImage = counter_data.data();
    set.range = CUPTI_AutoRange;
    set.replayMode = CUPTI_UserReplay;
    set.maxRangesPerPass = max_ranges;
    set.numNestingLevels = 1;
    set.minNestingLevel = 1;
    set.passIndex = 0;
    set.targetNestingLevel = 1;
    check(cuptiRangeProfilerSetConfig(&set), "cuptiRangeProfilerSetConfig");
    part("set_config");
    reply["seconds"]["setup"] = seconds_since(start);
    reply["seconds"]["setup_parts"] = std::move(setup_parts);

    LaunchRecorder recorder;
    if (std::string why = session.record_launches(recorder); !why.empty()) reply["launch_note"] = why;
    auto passes_start = Clock::now();
    size_t passes = 0;
    const size_t pass_limit = planned_passes + 8;  // a guard: CUPTI says when it has every pass
    // Where a pass goes, summed over the passes (CUPTI's start and stop against the call itself).
    double in_prepare = 0, in_start = 0, in_call = 0, in_stop = 0;
    for (bool all_submitted = false; !all_submitted;) {
        if (passes >= pass_limit)
            throw CountersError("passes", "CUPTI still wanted passes after " + std::to_string(passes) + " (planned " +
                                              std::to_string(planned_passes) + ")");
        kp::PhaseClock pass_clock;
        if (prepare(user) != 0) throw CountersError("call", "preparing pass " + std::to_string(passes) + " failed");
        in_prepare += pass_clock.lap();
        recorder.recording = passes == 0;
        CUpti_RangeProfiler_Start_Params start_pass{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
        start_pass.pRangeProfilerObject = session.object();
        check(cuptiRangeProfilerStart(&start_pass), "cuptiRangeProfilerStart");
        in_start += pass_clock.lap();
        int call_status = call(user);
        in_call += pass_clock.lap();
        CUpti_RangeProfiler_Stop_Params stop{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
        stop.pRangeProfilerObject = session.object();
        CUptiResult stopped = cuptiRangeProfilerStop(&stop);
        in_stop += pass_clock.lap();
        recorder.recording = false;
        if (call_status != 0) throw CountersError("call", "the profiled call failed in pass " + std::to_string(passes));
        check(stopped, "cuptiRangeProfilerStop");
        ++passes;
        all_submitted = stop.isAllPassSubmitted != 0;
    }
    reply["seconds"]["pass_parts"] = {{"prepare", in_prepare}, {"start", in_start}, {"call", in_call}, {"stop", in_stop}};
    reply["passes"] = passes;
    reply["seconds"]["passes"] = seconds_since(passes_start);

    auto decode_start = Clock::now();
    CUpti_RangeProfiler_DecodeData_Params decode{CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    decode.pRangeProfilerObject = session.object();
    check(cuptiRangeProfilerDecodeData(&decode), "cuptiRangeProfilerDecodeData");
    reply["dropped_ranges"] = decode.numOfRangeDropped;
    CUpti_RangeProfiler_GetCounterDataInfo_Params info{CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    info.pCounterDataImage = counter_data.data();
    info.counterDataImageSize = counter_data.size();
    check(cuptiRangeProfilerGetCounterDataInfo(&info), "cuptiRangeProfilerGetCounterDataInfo");
    json ranges = json::array();
    for (size_t r = 0; r < info.numTotalRanges; ++r) {
        CUpti_RangeProfiler_CounterData_GetRangeInfo_Params range{CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE};
        range.pCounterDataImage = counter_data.data();
        range.counterDataImageSize = counter_data.size();
        range.rangeIndex = r;
        range.rangeDelimiter = "/";
        std::string name = cuptiRangeProfilerCounterDataGetRangeInfo(&range) == CUPTI_SUCCESS && range.rangeName ? range.rangeName : "";
        ranges.push_back({{"index", r}, {"name", name}, {"metrics", config.evaluate(counter_data, r)}});
    }
    reply["ranges"] = std::move(ranges);
    json launches = json::array();
    for (const Launch& l : recorder.launches) launches.push_back(describe_launch(l));
    reply["launches"] = std::move(launches);
    reply["seconds"]["decode"] = seconds_since(decode_start);
    reply["seconds"]["total"] = seconds_since(start);
    return reply;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) char* kp_counters_collect(const char* request_json, kp_counters_step prepare, kp_counters_step call, void* user) {
    try {
        return kp::gpu::counters::to_c_string(collect(json::parse(request_json ? request_json : ""), prepare, call, user));
    } catch (const CountersError& e) {
        return kp::gpu::counters::to_c_string({{"error", e.what()}, {"stage", e.stage}});
    } catch (const std::exception& e) {
        return kp::gpu::counters::to_c_string({{"error", e.what()}, {"stage", "request"}});
    }
}

extern "C" __attribute__((visibility("default"))) char* kp_counters_plan(const char* request_json) {
    try {
        json request = json::parse(request_json ? request_json : "");
        const std::string chip = request.at("chip").get<std::string>();
        const auto metrics = request.at("metrics").get<std::vector<std::string>>();
        if (metrics.empty()) return kp::gpu::counters::to_c_string({{"error", "no metrics asked for"}});
        PlannedConfig planned = plan(chip, metrics, nullptr);
        json reply = {{"chip", chip}, {"unsupported", planned.unsupported}};
        if (planned.config) reply["passes"] = planned.config->passes();
        return kp::gpu::counters::to_c_string(reply);
    } catch (const std::exception& e) {
        return kp::gpu::counters::to_c_string({{"error", e.what()}});
    }
}

extern "C" __attribute__((visibility("default"))) void kp_counters_free(char* text) { std::free(text); }
