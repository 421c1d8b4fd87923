// Runs Nsight Compute on a program the caller names (the candidate runner) and returns typed
// metrics. Two modes:
//   * metrics only: one live run, `ncu --csv --print-units base --clock-control none --metrics ...`
//     whose stdout (long CSV mixed with the program's own output) is parsed directly;
//   * with the source page: the run exports a report (adding the SourceCounters and
//     WarpStateStats sections), then `ncu -i` prints it twice, `--page raw` (wide CSV) and
//     `--page source --print-source sass` (per-instruction rows).
// --clock-control none keeps the GPU's clocks as they are (shared hosts must not change them, and
// locked base clocks make compute-bound kernels look 1.3x slower than they run).
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "profile/collector.h"
#include "profile/kernel_metrics.h"
#include "profile/ncu_source_page.h"

namespace kp::profile {

struct NcuRequest {
    std::vector<std::string> metrics;       // full metric names, e.g. "dram__bytes_read.sum"
    std::vector<std::string> sections;      // optional section identifiers, e.g. "SpeedOfLight"
    std::vector<std::string> program_argv;  // the program to profile and its arguments
    std::string kernel_filter;              // ncu -k value: a name or "regex:..."; empty = every kernel
    int launch_skip = 0;                    // -s: matching launches to skip (warm-up)
    int launch_count = 1;                   // -c: launches to profile
    bool source_page = false;               // also collect per-SASS-instruction counters
    std::chrono::seconds timeout{600};
    std::map<std::string, std::string> environment;  // extra environment for the program
    std::optional<std::filesystem::path> working_directory;
    std::string cache_key;                  // names the binary, its inputs and the GPU; empty = no caching
    bool refresh_cache = false;             // collect again and overwrite what the cache holds
    std::filesystem::path empty_section_folder;  // set by collect() when only metrics are asked for
    // For the cost estimate only.
    double kernel_seconds = 1e-3;   // one launch of the kernel
    double program_seconds = 2.0;   // the program's run time without ncu
};

struct NcuResult {
    std::vector<KernelMetrics> kernels;
    std::vector<SourcePage> source_pages;
    std::vector<std::string> commands;  // the command lines that ran, for the record
    bool from_cache = false;
};

// Our model of ncu's replay cost, from passes measured on an H200 (docs/profiling.md, "Replay passes").
int estimate_ncu_replay_passes(const std::vector<std::string>& metrics, const std::vector<std::string>& sections,
                               bool source_page);

class NcuCollector {
public:
    // ncu_path empty: located with locate_nvidia_tool("ncu") when collecting.
    explicit NcuCollector(std::string ncu_path = {}, std::optional<CollectorCache> cache = std::nullopt);

    static constexpr const char* name() { return "ncu"; }

    // The profiling command. With `report` set, it exports there instead of printing CSV.
    std::vector<std::string> profile_command(const NcuRequest& request,
                                             const std::optional<std::filesystem::path>& report = std::nullopt) const;
    // `ncu -i report --csv --print-units base --page <page>` (page "source" adds --print-source sass).
    std::vector<std::string> import_command(const std::filesystem::path& report, const std::string& page) const;

    CollectorCost cost(const NcuRequest& request) const;

    Result<NcuResult> collect(const NcuRequest& request) const;

private:
    Result<std::string> run_ncu(const std::vector<std::string>& argv, const NcuRequest& request) const;
    std::string ncu_path_;
    std::optional<CollectorCache> cache_;
};

}  // namespace kp::profile
