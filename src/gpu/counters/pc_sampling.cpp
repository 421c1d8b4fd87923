// libkp_counters.so's PC sampling (kp_counters_sample_pcs, see kp_counters.h): CUPTI's PC sampling
// API around one call of the worker's counters run, kernel-serialized, every stall reason. Each SM
// samples one warp every 2^period cycles and records where it is and why it is not issuing; the
// reply lists, per function and PC offset, the samples by stall reason (line info maps them to
// source lines on the orchestrator's side, src/profile/pc_samples.h).
#include "gpu/counters/kp_counters.h"

#include "common/stopwatch.h"

#include <cuda.h>
#include <cupti.h>
#include <cupti_pcsampling.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpu/dynamic_library.h"
#include "gpu/counters/c_reply.h"

namespace {

using nlohmann::json;

struct SamplingError {
    std::string message;
};

std::string cupti_text(CUptiResult result) {
    const char* text = nullptr;
    cuptiGetResultString(result, &text);
    return text ? text : ("CUPTI error " + std::to_string(static_cast<int>(result)));
}

void check(CUptiResult result, const char* what) {
    if (result != CUPTI_SUCCESS) throw SamplingError{std::string(what) + ": " + cupti_text(result)};
}

CUcontext current_context() {
    auto library = kp::gpu::DynamicLibrary::find_loaded("libcuda.so.1");
    if (!library) throw SamplingError{"libcuda.so.1 is not loaded"};
    decltype(&::cuCtxGetCurrent) get_current = nullptr;
    if (!library->bind(get_current, "cuCtxGetCurrent")) throw SamplingError{"libcuda.so.1 lacks cuCtxGetCurrent"};
    CUcontext ctx = nullptr;
    if (get_current(&ctx) != CUDA_SUCCESS || !ctx) throw SamplingError{"no current CUDA context"};
    return ctx;
}

// The stall reasons this GPU samples: index -> name.
std::map<std::uint32_t, std::string> stall_reasons(CUcontext ctx) {
    size_t count = 0;
    CUpti_PCSamplingGetNumStallReasonsParams number{CUpti_PCSamplingGetNumStallReasonsParamsSize};
    number.ctx = ctx;
    number.numStallReasons = &count;
    check(cuptiPCSamplingGetNumStallReasons(&number), "cuptiPCSamplingGetNumStallReasons");
    std::vector<std::vector<char>> names(count, std::vector<char>(CUPTI_STALL_REASON_STRING_SIZE));
    std::vector<char*> name_pointers;
    for (auto& n : names) name_pointers.push_back(n.data());
    std::vector<std::uint32_t> indices(count);
    CUpti_PCSamplingGetStallReasonsParams reasons{CUpti_PCSamplingGetStallReasonsParamsSize};
    reasons.ctx = ctx;
    reasons.numStallReasons = count;
    reasons.stallReasonIndex = indices.data();
    reasons.stallReasons = name_pointers.data();
    check(cuptiPCSamplingGetStallReasons(&reasons), "cuptiPCSamplingGetStallReasons");
    std::map<std::uint32_t, std::string> out;
    for (size_t i = 0; i < count; ++i) out[indices[i]] = names[i].data();
    return out;
}

// A CUpti_PCSamplingData with room for `pcs` PCs of `reasons` stall reasons each.
struct SamplingBuffer {
    CUpti_PCSamplingData data{};
    std::vector<CUpti_PCSamplingPCData> pcs;
    std::vector<std::vector<CUpti_PCSamplingStallReason>> stalls;
    SamplingBuffer(size_t pc_count, size_t reasons) : pcs(pc_count), stalls(pc_count, std::vector<CUpti_PCSamplingStallReason>(reasons)) {
        data.size = sizeof(CUpti_PCSamplingData);
        data.collectNumPcs = pc_count;
        data.pPcData = pcs.data();
        for (size_t i = 0; i < pc_count; ++i) {
            pcs[i].size = sizeof(CUpti_PCSamplingPCData);
            pcs[i].stallReason = stalls[i].data();
        }
    }
};

using Key = std::tuple<std::string, std::uint64_t>;  // function, PC offset

void accumulate(const CUpti_PCSamplingData& data, const std::map<std::uint32_t, std::string>& names,
                std::map<Key, std::map<std::string, std::uint64_t>>& by_pc, json& totals) {
    for (size_t i = 0; i < data.totalNumPcs; ++i) {
        const CUpti_PCSamplingPCData& pc = data.pPcData[i];
        auto& stalls = by_pc[{pc.functionName ? pc.functionName : "", pc.pcOffset}];
        for (size_t r = 0; r < pc.stallReasonCount; ++r) {
            auto name = names.find(pc.stallReason[r].pcSamplingStallReasonIndex);
            stalls[name == names.end() ? "reason_" + std::to_string(pc.stallReason[r].pcSamplingStallReasonIndex) : name->second] +=
                pc.stallReason[r].samples;
        }
    }
    totals["total_samples"] = totals.value("total_samples", std::uint64_t{0}) + data.totalSamples;
    totals["non_user_kernel_samples"] = totals.value("non_user_kernel_samples", std::uint64_t{0}) + data.nonUsrKernelsTotalSamples;
    totals["dropped_samples"] = totals.value("dropped_samples", std::uint64_t{0}) + data.droppedSamples;
    if (data.hardwareBufferFull) totals["hardware_buffer_full"] = true;
}

// The context kp_counters_enable_pc_sampling enabled early, if any.
CUcontext g_enabled_early = nullptr;

void enable(CUcontext ctx) {
    CUpti_PCSamplingEnableParams enable{CUpti_PCSamplingEnableParamsSize};
    enable.ctx = ctx;
    check(cuptiPCSamplingEnable(&enable), "cuptiPCSamplingEnable");
}

// Enables PC sampling (unless it was enabled early, before the module loaded) and disables it on
// every return.
struct Enabled {
    CUcontext ctx;
    explicit Enabled(CUcontext c) : ctx(c) {
        if (g_enabled_early != ctx) enable(ctx);
        g_enabled_early = nullptr;
    }
    ~Enabled() {
        CUpti_PCSamplingDisableParams disable{CUpti_PCSamplingDisableParamsSize};
        disable.ctx = ctx;
        cuptiPCSamplingDisable(&disable);
    }
};

json sample(const json& request, kp_counters_step prepare, kp_counters_step call, void* user) {
    constexpr size_t kPcsPerBuffer = 4096;
    const std::uint32_t period = request.value("sampling_period", 9u);
    // CUPTI's worker threads decode and correlate the hardware buffer; they wake every 100 ms by
    // default (CUPTI's defaults are kept when the request names neither setting). The hardware
    // buffer, 512 MB by default, holds the samples until a worker thread decodes them.
    const std::uint32_t sleep_ms = request.value("worker_sleep_ms", 100u);
    const size_t hardware_buffer = request.value("hardware_buffer_bytes", size_t{512} << 20);
    CUcontext ctx = current_context();
    // Where the sampled call's time goes ("seconds" in the reply; the disable follows the return).
    json seconds = json::object();
    kp::PhaseClock clock;
    auto lap = [&](const char* phase) { seconds[phase] = clock.lap(); };
    // Every other PC sampling call needs the context's sampling object, which the enable creates
    // (asking for the stall reasons first fails with CUPTI_ERROR_INVALID_OPERATION on the H200's driver).
    Enabled enabled(ctx);
    const auto names = stall_reasons(ctx);
    std::vector<std::uint32_t> indices;
    for (const auto& [index, name] : names) indices.push_back(index);
    SamplingBuffer collected(kPcsPerBuffer, names.size());
    std::vector<CUpti_PCSamplingConfigurationInfo> config(8);
    config[0].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD;
    config[0].attributeData.samplingPeriodData.samplingPeriod = period;
    config[1].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON;
    config[1].attributeData.stallReasonData.stallReasonCount = indices.size();
    config[1].attributeData.stallReasonData.pStallReasonIndex = indices.data();
    config[2].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE;
    config[2].attributeData.collectionModeData.collectionMode = CUPTI_PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED;
    config[3].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_ENABLE_START_STOP_CONTROL;
    config[3].attributeData.enableStartStopControlData.enableStartStopControl = 1;
    config[4].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_OUTPUT_DATA_FORMAT;
    config[4].attributeData.outputDataFormatData.outputDataFormat = CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED;
    config[5].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER;
    config[5].attributeData.samplingDataBufferData.samplingDataBuffer = &collected.data;
    config[6].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_WORKER_THREAD_PERIODIC_SLEEP_SPAN;
    config[6].attributeData.workerThreadPeriodicSleepSpanData.workerThreadPeriodicSleepSpan = sleep_ms;
    config[7].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_HARDWARE_BUFFER_SIZE;
    config[7].attributeData.hardwareBufferSizeData.hardwareBufferSize = hardware_buffer;
    CUpti_PCSamplingConfigurationInfoParams configure{CUpti_PCSamplingConfigurationInfoParamsSize};
    configure.ctx = ctx;
    configure.numAttributes = config.size();
    configure.pPCSamplingConfigurationInfo = config.data();
    check(cuptiPCSamplingSetConfigurationAttribute(&configure), "cuptiPCSamplingSetConfigurationAttribute");
    lap("configure");

    if (prepare(user) != 0) throw SamplingError{"preparing the sampled call failed"};
    lap("prepare");
    CUpti_PCSamplingStartParams start{CUpti_PCSamplingStartParamsSize};
    start.ctx = ctx;
    check(cuptiPCSamplingStart(&start), "cuptiPCSamplingStart");
    const int status = call(user);
    lap("call");
    CUpti_PCSamplingStopParams stop{CUpti_PCSamplingStopParamsSize};
    stop.ctx = ctx;
    CUptiResult stopped = cuptiPCSamplingStop(&stop);
    lap("stop");
    if (status != 0) throw SamplingError{"the sampled call failed"};
    check(stopped, "cuptiPCSamplingStop");

    // What the stop copied into the configured buffer, then whatever CUPTI still holds.
    std::map<Key, std::map<std::string, std::uint64_t>> by_pc;
    json reply = {{"sampling_period", period}, {"worker_sleep_ms", sleep_ms}, {"hardware_buffer_bytes", hardware_buffer}};
    accumulate(collected.data, names, by_pc, reply);
    for (size_t remaining = collected.data.remainingNumPcs, rounds = 0; remaining > 0 && rounds < 1000; ++rounds) {
        SamplingBuffer more(kPcsPerBuffer, names.size());
        CUpti_PCSamplingGetDataParams get{CUpti_PCSamplingGetDataParamsSize};
        get.ctx = ctx;
        get.pcSamplingData = &more.data;
        check(cuptiPCSamplingGetData(&get), "cuptiPCSamplingGetData");
        accumulate(more.data, names, by_pc, reply);
        remaining = more.data.remainingNumPcs;
        if (more.data.totalNumPcs == 0) break;
    }
    lap("drain");
    reply["seconds"] = std::move(seconds);
    json pcs = json::array();
    for (const auto& [key, stalls] : by_pc) pcs.push_back({{"function", std::get<0>(key)}, {"pc_offset", std::get<1>(key)}, {"stalls", stalls}});
    reply["pcs"] = std::move(pcs);
    return reply;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) char* kp_counters_enable_pc_sampling(const char*) {
    try {
        CUcontext ctx = current_context();
        enable(ctx);
        g_enabled_early = ctx;
        return kp::gpu::counters::to_c_string(json::object());
    } catch (const SamplingError& e) {
        return kp::gpu::counters::to_c_string({{"error", e.message}});
    }
}

extern "C" __attribute__((visibility("default"))) char* kp_counters_sample_pcs(const char* request_json, kp_counters_step prepare,
                                                                               kp_counters_step call, void* user) {
    try {
        return kp::gpu::counters::to_c_string(sample(json::parse(request_json ? request_json : "{}"), prepare, call, user));
    } catch (const SamplingError& e) {
        return kp::gpu::counters::to_c_string({{"error", e.message}});
    } catch (const std::exception& e) {
        return kp::gpu::counters::to_c_string({{"error", e.what()}});
    }
}
