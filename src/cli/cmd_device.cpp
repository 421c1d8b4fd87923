// kernelpro device [--json] [--refresh] [--device N]: the GPU's limits and its measured ceilings
// (DRAM and L2 bandwidth, FP32/FP64 and tensor-core rates). The ceilings come from the
// kernelpro-ceilings helper, cached per GPU name and driver version under
// cache_directory()/ceilings/; --refresh measures again. Without a GPU it shows the H200 datasheet
// values, labelled as such, and exits 0. Exit 3 when a GPU is present but measuring failed.
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "common/files.h"
#include "common/process.h"
#include "common/resource_locator.h"
#include "gpu/ceilings.h"
#include "gpu/ceilings_cache.h"
#include "gpu/cuda_driver.h"
#include "gpu/datasheets.h"

namespace kp::cli {

namespace {

struct DeviceOptions {
    bool json = false;
    bool refresh = false;
    int device = 0;
};

std::string rate(const gpu::Ceiling& c) {
    if (!c.skipped.empty()) return "skipped";
    if (c.unit == "byte/s") return fmt::format("{:.2f} TB/s", c.value / 1e12);
    if (c.unit == "flop/s") return fmt::format("{:.1f} TFLOP/s", c.value / 1e12);
    return fmt::format("{:.4g} {}", c.value, c.unit);
}

void print_table(const gpu::DeviceCeilings& ceilings, const std::string& cache_note) {
    const gpu::DeviceInfo& d = ceilings.device;
    std::string out;
    out += fmt::format("{} ({}, {} SMs)\n", d.name, d.sm_target(), d.sm_count);
    out += fmt::format("  {}\n", ceilings.label);
    if (!ceilings.measured_at.empty()) out += fmt::format("  measured at {}\n", ceilings.measured_at);
    if (!cache_note.empty()) out += fmt::format("  {}\n", cache_note);

    out += "\nLimits\n";
    auto row = [&](const char* what, const std::string& value) { out += fmt::format("  {:<36} {}\n", what, value); };
    row("memory", fmt::format("{:.1f} GiB, {}-bit bus, {} MHz", d.total_memory_bytes / double(1 << 30),
                              d.memory_bus_width_bits, d.memory_clock_khz / 1000));
    row("DRAM peak (clock x bus width)", fmt::format("{:.2f} TB/s", d.theoretical_dram_bytes_per_second() / 1e12));
    row("L2", fmt::format("{:.1f} MiB (persisting up to {:.1f} MiB)", d.l2_cache_bytes / double(1 << 20),
                          d.max_persisting_l2_bytes / double(1 << 20)));
    row("shared memory per SM / block opt-in",
        fmt::format("{} / {} KiB ({} KiB default, {} B reserved per block)", d.shared_memory_per_sm_bytes / 1024,
                    d.shared_memory_per_block_optin_bytes / 1024, d.shared_memory_per_block_bytes / 1024,
                    d.reserved_shared_memory_per_block_bytes));
    row("registers per SM / block", fmt::format("{} / {}", d.registers_per_sm, d.registers_per_block));
    row("max warps / threads / blocks per SM",
        fmt::format("{} / {} / {}", d.max_warps_per_sm, d.max_threads_per_sm, d.max_blocks_per_sm));
    row("SM clock (driver's typical)", fmt::format("{} MHz", d.sm_clock_khz / 1000));

    out += fmt::format("\nCeilings\n  {:<12} {:>16} {:>11} {:>6} {:>10}  {}\n", "name", "value", "median", "reps",
                       "SM clock", "method");
    for (const auto& c : ceilings.ceilings) {
        std::string clock = c.sm_clock_mhz_mean ? fmt::format("{:.0f} MHz", *c.sm_clock_mhz_mean) : "-";
        std::string median = c.median_seconds > 0 ? fmt::format("{:.3f} ms", c.median_seconds * 1e3) : "-";
        std::string reps = c.repetitions > 0 ? std::to_string(c.repetitions) : "-";
        std::string method = c.skipped.empty() ? c.method : c.skipped;
        out += fmt::format("  {:<12} {:>16} {:>11} {:>6} {:>10}  {}\n", c.name, rate(c), median, reps, clock, method);
        std::vector<std::string> reasons;
        for (const auto& r : c.clock_event_reasons) reasons.push_back(r);
        if (!reasons.empty()) out += fmt::format("  {:<12} clock limited by: {}\n", "", fmt::join(reasons, ", "));
    }
    std::fputs(out.c_str(), stdout);
}

void show(const gpu::DeviceCeilings& ceilings, const DeviceOptions& options, const std::string& cache_note) {
    if (options.json) {
        nlohmann::json j = ceilings;
        if (!cache_note.empty()) j["cache_note"] = cache_note;
        std::printf("%s\n", j.dump(2).c_str());
    } else {
        print_table(ceilings, cache_note);
    }
}

// Runs the helper and returns its parsed output; the error names the command and its stderr tail.
Result<gpu::DeviceCeilings> measure(int device) {
    auto helper = locate_helper("kernelpro-ceilings");
    if (!helper) return helper.error();
    std::fprintf(stderr, "kernelpro device: measuring ceilings with %s (about a minute) ...\n", helper->c_str());
    ProcessOptions process_options;
    process_options.timeout = std::chrono::minutes(10);
    auto run = run_process({helper->string(), "--device", std::to_string(device)}, process_options);
    if (!run) return run.error();
    if (!run->succeeded()) {
        std::string tail = run->stderr_text.size() > 2000 ? run->stderr_text.substr(run->stderr_text.size() - 2000)
                                                          : run->stderr_text;
        return make_error(run->describe_failure() + "\n" + tail);
    }
    return gpu::parse_ceilings_json(run->stdout_text);
}

int run_device(const DeviceOptions& options) {
    auto driver = gpu::CudaDriver::load();
    if (!driver) {
        std::fprintf(stderr, "kernelpro device: %s; showing datasheet values (measuring needs a GPU)\n",
                     driver.error().message.c_str());
        show(gpu::no_gpu_ceilings(driver.error().message), options, "");
        return kExitOk;
    }
    auto info = driver->device_info(options.device);
    if (!info) {
        std::fprintf(stderr, "kernelpro device: %s\n", info.error().message.c_str());
        show(gpu::no_gpu_ceilings("no GPU: " + info.error().message), options, "");
        return kExitOk;
    }
    const std::string driver_version = gpu::ceilings_driver_version(driver->driver_version());
    auto cache_path = gpu::ceilings_cache_path(cache_directory(), info->name, driver_version);
    if (!options.refresh && std::filesystem::exists(cache_path)) {
        if (auto cached = gpu::read_ceilings_file(cache_path)) {
            show(*cached, options, "cached in " + cache_path.string() + " (--refresh measures again)");
            return kExitOk;
        }
        std::fprintf(stderr, "kernelpro device: ignoring an unreadable cache file %s\n", cache_path.c_str());
    }
    auto measured = measure(options.device);
    if (!measured) {
        std::fprintf(stderr, "kernelpro device: measuring failed: %s\n", measured.error().message.c_str());
        return kExitEnvironment;
    }
    nlohmann::json j = *measured;
    if (auto written = write_file_atomically(cache_path, j.dump(2) + "\n"); !written)
        std::fprintf(stderr, "kernelpro device: could not cache the result: %s\n", written.error().message.c_str());
    show(*measured, options, "saved to " + cache_path.string());
    return kExitOk;
}

}  // namespace

Handler register_device(CLI::App& root) {
    auto* command = root.add_subcommand("device", "Show the GPU's limits and measured ceilings (bandwidth, FLOP rates)");
    auto options = std::make_shared<DeviceOptions>();
    command->add_flag("--json", options->json, "Print as JSON (schema kernelpro.ceilings.v1)");
    command->add_flag("--refresh", options->refresh, "Measure again instead of using the cached result");
    command->add_option("--device", options->device, "CUDA device ordinal")->check(CLI::NonNegativeNumber);
    return [options] {
        try {
            return run_device(*options);
        } catch (const std::exception& error) {
            std::fprintf(stderr, "kernelpro device: internal error: %s\n", error.what());
            return kExitEnvironment;
        }
    };
}

}  // namespace kp::cli
