// Builds ProfileData for the nine H200 fixture kernels from the recorded ncu raw page, nvdisasm
// JSON + line info, ptxas log and source pages, with each task's minimal FLOPs and bytes taken
// from kernels.cu.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../profile/fixture_path.h"
#include "analysis/profile_data.h"
#include "gpu/datasheets.h"
#include "profile/kernel_names.h"
#include "profile/ncu_csv.h"
#include "profile/nvdisasm_json.h"
#include "profile/nvdisasm_line_info.h"
#include "profile/ptxas_report.h"

namespace kp::testing {

struct FixtureSet {
    std::vector<profile::KernelMetrics> kernels;
    profile::SassProgram program;
    profile::PtxasReport ptxas;
    std::map<std::string, profile::SourcePage> source_pages;  // by kernel base name
};

inline const FixtureSet& h200_fixtures() {
    static const FixtureSet set = [] {
        FixtureSet s;
        auto kernels = profile::parse_ncu_csv(read_fixture("h200/ncu_raw_wide.csv"));
        if (kernels) s.kernels = *kernels;
        auto program = profile::parse_nvdisasm_json(read_fixture("h200/nvdisasm.json"));
        if (program) s.program = *program;
        auto lines = profile::parse_nvdisasm_line_info(read_fixture("h200/nvdisasm_lineinfo.txt"));
        if (lines) profile::attach_line_info(s.program, *lines);
        auto ptxas = profile::parse_ptxas_report(read_fixture("h200/ptxas_v.txt"));
        if (ptxas) s.ptxas = *ptxas;
        for (const char* file : {"h200/ncu_source_copy_strided.csv", "h200/ncu_source_transpose.csv"}) {
            auto pages = profile::parse_ncu_source_csv(read_fixture(file));
            if (pages && !pages->empty()) s.source_pages[profile::kernel_base_name(pages->front().kernel_name)] = pages->front();
        }
        return s;
    }();
    return set;
}

inline analysis::TaskBounds task_bounds(const std::string& kernel) {
    const double n = 1 << 26;
    analysis::TaskBounds t;
    if (kernel == "copy_vec4" || kernel == "copy_strided") t.min_bytes = 2 * n * 4;
    else if (kernel == "transpose_naive_smem") t.min_bytes = 2.0 * 8192 * 8192 * 4;
    else if (kernel == "spill_heavy") { t.min_bytes = 2 * (n / 16) * 4; t.min_flops = (n / 16) * 64 * 3; }
    else if (kernel == "sgemm_naive") { t.min_flops = 2.0 * 2048 * 2048 * 2048; t.min_bytes = 3.0 * 2048 * 2048 * 4; }
    else if (kernel == "wmma_bf16_gemm") {
        t.min_flops = 2.0 * 4096 * 4096 * 4096;
        t.min_bytes = 2.0 * 4096 * 4096 * 2 + 4096.0 * 4096 * 4;
        t.precision = analysis::FlopPrecision::bf16_tensor;
    } else if (kernel == "small_grid_fma") { t.min_flops = 256.0 * (1 << 20) * 2; t.min_bytes = 256 * 4; }
    else if (kernel == "histogram_atomic") t.min_bytes = n + 256 * 4;
    else if (kernel == "fp64_in_fp32") { t.min_bytes = 2 * (n / 4) * 4; t.min_flops = (n / 4) * 64 * 2; }
    return t;
}

// The H200's datasheet ceilings with its limits: what the fixtures were recorded on.
inline gpu::DeviceCeilings h200_ceilings() { return *gpu::datasheet_ceilings(gpu::h200_reference_device()); }

// Everything recorded for one kernel. `with_source` adds the source page where one was recorded.
inline analysis::ProfileData fixture_profile(const std::string& kernel, bool with_source = true) {
    const FixtureSet& s = h200_fixtures();
    analysis::ProfileData data;
    data.kernel_name = kernel;
    data.ceilings = h200_ceilings();
    for (const auto& k : s.kernels)
        if (profile::kernel_base_name(k.name) == kernel) data.metrics = k;
    EXPECT_TRUE(data.metrics.has_value()) << kernel;
    for (const auto& f : s.program.functions) {
        if (profile::same_kernel(f.name, kernel)) {
            data.sass_function = f;
            data.sass = profile::summarize_sass(f);
        }
    }
    EXPECT_TRUE(data.sass.has_value()) << kernel;
    for (const auto& f : s.ptxas.functions)
        if (profile::same_kernel(f.name, kernel)) data.ptxas = f;
    if (with_source) {
        auto page = s.source_pages.find(kernel);
        if (page != s.source_pages.end()) data.source = page->second;
    }
    if (data.metrics) data.occupancy = analysis::occupancy_from_metrics(*data.metrics, data.ceilings);
    data.task = task_bounds(kernel);
    return data;
}

inline const std::vector<std::string>& fixture_kernel_names() {
    static const std::vector<std::string> names = {"copy_vec4", "copy_strided", "transpose_naive_smem", "spill_heavy", "sgemm_naive",
                                                   "wmma_bf16_gemm", "small_grid_fma", "histogram_atomic", "fp64_in_fp32"};
    return names;
}

}  // namespace kp::testing
