// kernelpro-ceilings: measures this GPU's ceilings and prints them as JSON (kernelpro.ceilings.v1)
// on stdout; progress goes to stderr. `kernelpro device` runs it and caches the result.
//
//   kernelpro-ceilings [--device N] [--only dram_copy,l2_read,fp32_fma,fp64_fma,tensor_bf16,tensor_fp16]
//
// Exit codes: 0 printed (some ceilings may be `skipped` with a reason), 2 usage, 3 no usable GPU.
// It never changes clocks or other GPU settings: it measures the card as it finds it.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "gpu/ceilings.h"
#include "gpu/ceilings/benchmarks.h"
#include "gpu/cuda_driver.h"
#include "gpu/nvml_library.h"

namespace {

using namespace kp;

struct Options {
    int device = 0;
    std::set<std::string> only;  // empty: all
};

const char* const kAllCeilings[] = {"dram_copy", "l2_read", "fp32_fma", "fp64_fma", "tensor_bf16", "tensor_fp16"};

bool parse_options(int argc, char** argv, Options& options) {
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--device" && i + 1 < argc) {
            options.device = std::atoi(argv[++i]);
        } else if (arg == "--only" && i + 1 < argc) {
            std::stringstream list(argv[++i]);
            for (std::string name; std::getline(list, name, ',');) {
                bool known = false;
                for (const char* k : kAllCeilings) known = known || name == k;
                if (!known) {
                    std::fprintf(stderr, "kernelpro-ceilings: unknown ceiling '%s'\n", name.c_str());
                    return false;
                }
                options.only.insert(name);
            }
        } else {
            std::fprintf(stderr,
                         "usage: kernelpro-ceilings [--device N] [--only name,...]\n"
                         "names: dram_copy l2_read fp32_fma fp64_fma tensor_bf16 tensor_fp16\n");
            return false;
        }
    }
    return true;
}

std::string utc_now() {
    std::time_t now = std::time(nullptr);
    std::tm parts{};
    gmtime_r(&now, &parts);
    char buffer[32];
    std::strftime(buffer, sizeof(buffer), "%Y-%m-%dT%H:%M:%SZ", &parts);
    return buffer;
}

}  // namespace

int main(int argc, char** argv) {
    Options options;
    if (!parse_options(argc, argv, options)) return 2;

    auto driver = gpu::CudaDriver::load();
    if (!driver) {
        std::fprintf(stderr, "kernelpro-ceilings: %s\n", driver.error().message.c_str());
        return 3;
    }
    auto device = driver->device_info(options.device);
    if (!device) {
        std::fprintf(stderr, "kernelpro-ceilings: %s\n", device.error().message.c_str());
        return 3;
    }
    if (cudaError_t status = cudaSetDevice(options.device); status != cudaSuccess) {
        std::fprintf(stderr, "kernelpro-ceilings: cudaSetDevice: %s\n", cudaGetErrorString(status));
        return 3;
    }

    gpu::DeviceCeilings result;
    result.source = "measured";
    result.device = *device;
    result.measured_at = utc_now();
    cudaRuntimeGetVersion(&result.cuda_runtime_version);

    std::optional<gpu::Nvml> nvml;
    unsigned nvml_index = static_cast<unsigned>(options.device);
    if (auto loaded = gpu::Nvml::load()) {
        nvml = *loaded;
        result.driver_version = nvml->driver_version();
        if (auto index = nvml->index_for_pci_bus_id(device->pci_bus_id)) nvml_index = *index;
    } else {
        std::fprintf(stderr, "kernelpro-ceilings: no clock readings: %s\n", loaded.error().message.c_str());
    }
    if (result.driver_version.empty()) result.driver_version = gpu::format_cuda_version(device->driver_version);
    result.label = "measured on " + device->name + " (driver " + result.driver_version + ")";

    kp::ceilings::ClockSampler sampler(nvml, nvml_index);
    cudaStream_t stream = nullptr;
    if (cudaError_t status = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking); status != cudaSuccess) {
        std::fprintf(stderr, "kernelpro-ceilings: cudaStreamCreate: %s\n", cudaGetErrorString(status));
        return 3;
    }
    kp::ceilings::BenchmarkContext context{*device, sampler, stream, kp::ceilings::TimingPolicy{}};

    using Measure = std::function<gpu::Ceiling()>;
    const std::pair<const char*, Measure> measurements[] = {
        {"dram_copy", [&] { return kp::ceilings::measure_dram_copy(context); }},
        {"l2_read", [&] { return kp::ceilings::measure_l2_read(context); }},
        {"fp32_fma", [&] { return kp::ceilings::measure_fp32_fma(context); }},
        {"fp64_fma", [&] { return kp::ceilings::measure_fp64_fma(context); }},
        {"tensor_bf16", [&] { return kp::ceilings::measure_tensor_gemm(context, kp::ceilings::TensorPrecision::bf16); }},
        {"tensor_fp16", [&] { return kp::ceilings::measure_tensor_gemm(context, kp::ceilings::TensorPrecision::fp16); }},
    };
    for (const auto& [name, measure] : measurements) {
        if (!options.only.empty() && !options.only.count(name)) continue;
        std::fprintf(stderr, "kernelpro-ceilings: measuring %s ...\n", name);
        try {
            gpu::Ceiling ceiling = measure();
            std::fprintf(stderr, "kernelpro-ceilings:   %s = %.4g %s (median of %d, SM clock %.0f MHz)\n", name,
                         ceiling.value, ceiling.unit.c_str(), ceiling.repetitions,
                         ceiling.sm_clock_mhz_mean.value_or(0.0));
            result.ceilings.push_back(std::move(ceiling));
        } catch (const std::exception& error) {
            gpu::Ceiling skipped;
            skipped.name = name;
            skipped.skipped = error.what();
            std::fprintf(stderr, "kernelpro-ceilings:   %s skipped: %s\n", name, error.what());
            result.ceilings.push_back(std::move(skipped));
            // A sticky error (illegal address) poisons the context for everything after it.
            if (cudaError_t sticky = cudaDeviceSynchronize(); sticky != cudaSuccess) {
                std::fprintf(stderr, "kernelpro-ceilings: the CUDA context is unusable: %s\n", cudaGetErrorString(sticky));
                break;
            }
        }
    }
    cudaStreamDestroy(stream);

    nlohmann::json document = result;
    std::printf("%s\n", document.dump(2).c_str());
    return 0;
}
