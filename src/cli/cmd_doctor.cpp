// kernelpro doctor [--json] [--require-sandbox]: what this machine offers kernelpro: the GPU and
// driver, the CUDA tools (nvcc, ncu, nvdisasm, cuobjdump, compute-sanitizer), CUPTI, NVML, the
// CUTLASS headers (with their version), kernelpro's own helpers (kernelpro-ceilings, the timeline
// and counters libraries, the launch gate), found or
// missing, with versions, and each layer of the sandbox around candidate code (applied for real by
// a worker) with why it is missing. It reports; a missing GPU is not a failure (exit 0). Exit 3 on
// an internal error, or with --require-sandbox when a sandbox layer is missing.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "build/cutlass_install.h"
#include "cli/commands.h"
#include "eval/sandbox_probe.h"
#include "cli/common_options.h"
#include "common/utf8.h"
#include "gpu/cuda_driver.h"
#include "gpu/helper_paths.h"
#include "gpu/nvml_library.h"
#include "gpu/toolchain.h"

namespace kp::cli {

namespace {

struct GpuReport {
    std::vector<gpu::DeviceInfo> devices;
    std::string error;                 // "no GPU: ..." when none is usable
    int cuda_driver_version = 0;       // 13000
    std::string nvidia_driver_version; // "580.159.04" from NVML
    std::string energy_counter = "no GPU";  // empty: NVML's total-energy counter reads; else why not
};

GpuReport probe_gpu() {
    GpuReport report;
    // The same check eval and optimize make, so doctor's "no GPU" line is the one they print.
    if (auto usable = require_usable_gpu(); !usable.ok()) report.error = usable.error().message;
    auto driver = gpu::CudaDriver::load();
    if (!driver) {
        if (report.error.empty()) report.error = driver.error().message;
        report.energy_counter = driver.error().message;
        return report;
    }
    report.cuda_driver_version = driver->driver_version();
    auto devices = driver->all_devices();
    if (!devices && report.error.empty()) report.error = "no GPU: " + devices.error().message;
    else if (devices && report.error.empty()) report.devices = std::move(*devices);
    auto nvml = gpu::Nvml::load();
    if (nvml) {
        report.nvidia_driver_version = nvml->driver_version();
        auto energy = nvml->total_energy_millijoules(0);
        report.energy_counter = energy ? "" : energy.error().message;
    } else {
        report.energy_counter = nvml.error().message;
    }
    return report;
}

gpu::ToolStatus probe_helper(const std::string& file, const std::string& needed_for) {
    gpu::ToolStatus status;
    status.name = file;
    status.needed_for = needed_for;
    if (auto path = gpu::find_helper(file)) {
        status.found = true;
        status.path = path->string();
    } else {
        status.detail = "not built or not installed next to kernelpro";
    }
    return status;
}

// The CUTLASS/CuTe headers CUTLASS tasks compile against (docs/cutlass.md).
gpu::ToolStatus probe_cutlass() {
    gpu::ToolStatus status;
    status.name = "cutlass";
    status.needed_for = "tasks with [build] libraries = [\"cutlass\"]";
    auto install = locate_cutlass();
    if (!install.ok()) {
        status.detail = install.error().message;
        return status;
    }
    status.found = true;
    status.version = install->version;
    status.path = path_text(install->root);
    status.detail = "found by " + install->found_by;
    return status;
}

std::string gib(std::int64_t bytes) { return fmt::format("{:.1f} GiB", bytes / double(1 << 30)); }
std::string mib(std::int64_t bytes) { return fmt::format("{:.1f} MiB", bytes / double(1 << 20)); }

bool has(const std::vector<gpu::ToolStatus>& tools, const std::string& name) {
    for (const auto& t : tools)
        if (t.name == name) return t.found;
    return false;
}

// Counters are counted in the worker (CUPTI and libkp_counters.so) or, failing that, by ncu.
bool counters_in_worker(const std::vector<gpu::ToolStatus>& tools, const std::vector<gpu::ToolStatus>& helpers) {
    return has(tools, "cupti") && has(helpers, "libkp_counters.so");
}
bool counters_ready(bool gpu_present, const std::vector<gpu::ToolStatus>& tools, const std::vector<gpu::ToolStatus>& helpers) {
    return gpu_present && (counters_in_worker(tools, helpers) || has(tools, "ncu"));
}
std::string counted_by(const std::vector<gpu::ToolStatus>& tools, const std::vector<gpu::ToolStatus>& helpers) {
    if (counters_in_worker(tools, helpers)) return has(tools, "ncu") ? "the worker (CUPTI), ncu as fallback" : "the worker (CUPTI)";
    return "ncu";
}

// The sandbox a worker applies here, or why it could not be probed.
struct SandboxProbe {
    sandbox::SandboxReport report;
    std::string error;
    bool complete() const { return error.empty() && report.complete(); }
};

SandboxProbe probe_sandbox() {
    SandboxProbe probe;
    auto report = probe_worker_sandbox();
    if (report) probe.report = *report;
    else probe.error = report.error().message;
    return probe;
}

std::string sandbox_section(const SandboxProbe& probe) {
    std::string out = "\nSandbox for candidate code (applied by kernelpro-worker)\n";
    if (!probe.error.empty()) return out + fmt::format("  {:<20} {}\n", "sandbox", "unknown: " + probe.error);
    for (const auto& l : probe.report.layers)
        out += fmt::format("  {:<20} {:<12} {}\n", l.name, sandbox::layer_state_name(l.state), l.detail);
    return out;
}

void print_text(const GpuReport& gpu_report, const std::vector<gpu::ToolStatus>& tools,
                const std::vector<gpu::ToolStatus>& helpers, const SandboxProbe& sandbox_probe) {
    std::string out = "kernelpro doctor\n\nGPU and driver\n";
    if (gpu_report.devices.empty()) {
        out += fmt::format("  {:<20} {}\n", "gpu", gpu_report.error);
    } else {
        for (const auto& d : gpu_report.devices)
            out += fmt::format("  {:<20} {} ({}, {} SMs, {}, L2 {})\n", fmt::format("gpu {}", d.ordinal), d.name,
                               d.sm_target(), d.sm_count, gib(d.total_memory_bytes), mib(d.l2_cache_bytes));
    }
    if (gpu_report.cuda_driver_version > 0)
        out += fmt::format("  {:<20} CUDA {}{}\n", "driver", gpu::format_cuda_version(gpu_report.cuda_driver_version),
                           gpu_report.nvidia_driver_version.empty() ? "" : " (NVIDIA " + gpu_report.nvidia_driver_version + ")");
    else
        out += fmt::format("  {:<20} missing\n", "driver");

    auto table = [&](const char* title, const std::vector<gpu::ToolStatus>& rows) {
        out += fmt::format("\n{}\n", title);
        for (const auto& t : rows) {
            std::string where = t.found ? t.path : ("needed for " + t.needed_for);
            if (!t.detail.empty()) where += " (" + t.detail + ")";
            out += fmt::format("  {:<20} {:<8} {:<12} {}\n", t.name, t.found ? "found" : "missing",
                               t.version.empty() ? "-" : t.version, where);
        }
    };
    table("Tools", tools);
    table("kernelpro helpers", helpers);
    out += sandbox_section(sandbox_probe);

    out += "\nWhat works here\n";
    bool gpu_present = !gpu_report.devices.empty();
    auto line = [&](const char* what, bool ok, const std::string& missing) {
        out += fmt::format("  {:<20} {}\n", what, ok ? "yes" : "no: " + missing);
    };
    line("compile", has(tools, "nvcc"), "nvcc not found");
    line("CUTLASS candidates", has(tools, "nvcc") && has(tools, "cutlass") && has(helpers, "libkp_launch_gate.so"),
         !has(tools, "cutlass") ? "CUTLASS headers missing (scripts/setup, or --cutlass-dir)" : "libkp_launch_gate.so or nvcc missing");
    line("evaluate and time", gpu_present, gpu_present ? "" : gpu_report.error + " (evaluation needs a GPU)");
    line("counter profiles", counters_ready(gpu_present, tools, helpers),
         !gpu_present ? "no GPU: counters need a GPU" : "neither CUPTI with libkp_counters.so nor ncu found");
    out += fmt::format("  {:<20} {}\n", "  counted by", counters_ready(gpu_present, tools, helpers) ? counted_by(tools, helpers) : "-");
    line("source page", gpu_present && has(tools, "ncu"), !gpu_present ? "no GPU" : "ncu not found");
    line("kernel timeline", gpu_present && has(tools, "cupti") && has(helpers, "libkp_timeline.so"),
         !gpu_present ? "no GPU: the CUPTI timeline needs a GPU" : "CUPTI or libkp_timeline.so missing");
    line("energy (--energy)", gpu_report.energy_counter.empty(), gpu_report.energy_counter);
    line("measured ceilings", gpu_present && has(helpers, "kernelpro-ceilings"),
         !gpu_present ? "no GPU: `kernelpro device` shows H200 datasheet values instead" : "kernelpro-ceilings missing");
    line("full sandbox", sandbox_probe.complete(),
         sandbox_probe.error.empty() ? sandbox_probe.report.missing() : sandbox_probe.error);
    std::fputs(out.c_str(), stdout);
}

void print_json(const GpuReport& gpu_report, const std::vector<gpu::ToolStatus>& tools,
                const std::vector<gpu::ToolStatus>& helpers, const SandboxProbe& sandbox_probe) {
    bool gpu_present = !gpu_report.devices.empty();
    nlohmann::json j = {
        {"gpu", {{"available", gpu_present},
                 {"error", gpu_report.error},
                 {"devices", gpu_report.devices},
                 {"cuda_driver_version", gpu::format_cuda_version(gpu_report.cuda_driver_version)},
                 {"nvidia_driver_version", gpu_report.nvidia_driver_version}}},
        {"tools", tools},
        {"helpers", helpers},
        {"sandbox", sandbox_probe.error.empty() ? sandbox_probe.report.to_json() : nlohmann::json{{"complete", false}, {"error", sandbox_probe.error}}},
        {"ready", {{"compile", has(tools, "nvcc")},
                   {"cutlass", has(tools, "nvcc") && has(tools, "cutlass") && has(helpers, "libkp_launch_gate.so")},
                   {"evaluate", gpu_present},
                   {"counter_profiles", counters_ready(gpu_present, tools, helpers)},
                   {"counted_by", counters_ready(gpu_present, tools, helpers) ? counted_by(tools, helpers) : ""},
                   {"source_page", gpu_present && has(tools, "ncu")},
                   {"timeline", gpu_present && has(tools, "cupti") && has(helpers, "libkp_timeline.so")},
                   {"energy", gpu_report.energy_counter.empty()},
                   {"energy_error", gpu_report.energy_counter},
                   {"measured_ceilings", gpu_present && has(helpers, "kernelpro-ceilings")},
                   {"full_sandbox", sandbox_probe.complete()}}}};
    std::printf("%s\n", dump_json(j, 2).c_str());
}

int run_doctor(bool json, bool require_sandbox) {
    GpuReport gpu_report = probe_gpu();
    std::vector<gpu::ToolStatus> tools = gpu::probe_toolchain();
    tools.push_back(probe_cutlass());
    std::vector<gpu::ToolStatus> helpers = {
        probe_helper("kernelpro-ceilings", "measured device ceilings (kernelpro device)"),
        probe_helper("libkp_timeline.so", "the CUPTI kernel timeline"),
        probe_helper("libkp_counters.so", "counters in the worker (CUPTI range profiler)"),
        probe_helper("libkp_launch_gate.so", "the cluster launches of CUTLASS candidates"),
    };
    SandboxProbe sandbox_probe = probe_sandbox();
    if (json) print_json(gpu_report, tools, helpers, sandbox_probe);
    else print_text(gpu_report, tools, helpers, sandbox_probe);
    if (require_sandbox && !sandbox_probe.complete()) {
        std::fprintf(stderr, "kernelpro doctor: the sandbox is incomplete: %s\n",
                     sandbox_probe.error.empty() ? sandbox_probe.report.missing().c_str() : sandbox_probe.error.c_str());
        return kExitEnvironment;
    }
    return kExitOk;
}

}  // namespace

Handler register_doctor(CLI::App& root) {
    auto* command = root.add_subcommand("doctor", "Report the GPU, driver and CUDA tools kernelpro can use");
    auto json = std::make_shared<bool>(false);
    auto require_sandbox = std::make_shared<bool>(false);
    command->add_flag("--json", *json, "Print the report as JSON");
    command->add_flag("--require-sandbox", *require_sandbox, "Exit 3 when a layer of the sandbox around candidate code is missing");
    return [json, require_sandbox] {
        try {
            return run_doctor(*json, *require_sandbox);
        } catch (const std::exception& error) {
            std::fprintf(stderr, "kernelpro doctor: internal error: %s\n", error.what());
            return kExitEnvironment;
        }
    };
}

}  // namespace kp::cli
