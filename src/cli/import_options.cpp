#include "cli/import_options.h"

#include <iostream>

#include <fmt/format.h>

#include "cli/commands.h"
#include "kernelbench/import_report.h"

namespace kp::cli {

void add_import_flags(CLI::App& cmd, ImportFlags& flags) {
    cmd.add_option("--precision", flags.precision, "Precision of inputs and module (KernelBench's tolerance: fp32 1e-4, fp16/bf16 1e-2)")
        ->capture_default_str()->check(CLI::IsMember({"fp32", "fp16", "bf16"}));
    cmd.add_option("--check-constant", flags.check_constant,
                   "Run each problem to see whether a constant output passes (auto: on a GPU, or on the CPU when small)")
        ->capture_default_str()->check(CLI::IsMember({"auto", "on", "off"}));
    cmd.add_option("--jobs", flags.jobs, "Problems imported at once (one Python process each)")->capture_default_str()
        ->check(CLI::Range(1, 64));
    cmd.add_flag("-q,--quiet", flags.quiet, "No line per problem");
}

int run_import(const std::vector<kernelbench::ImportJob>& jobs, const ImportFlags& flags, const std::filesystem::path& out_dir,
               const std::string& title) {
    kernelbench::ImportOptions options;
    options.precision = flags.precision;
    options.check_constant = flags.check_constant;
    options.jobs = flags.jobs;
    auto outcomes = kernelbench::import_and_report(jobs, options, out_dir, title, flags.quiet);
    if (!outcomes.ok()) {
        std::cerr << "error: " << outcomes.error().message << "\n";
        return kExitEnvironment;
    }
    auto counts = kernelbench::count_outcomes(*outcomes);
    std::cout << fmt::format("{} problems: {} converted, {} unconvertible, {} errors; {} flagged degenerate\n", counts.problems,
                             counts.converted, counts.unconvertible, counts.errors, counts.degenerate);
    for (const auto& o : *outcomes)
        if (o.status != kernelbench::ImportStatus::converted)
            std::cout << fmt::format("  {}: {}\n", o.job.file.filename().string(), o.reason);
    std::cout << (out_dir / "import-report.md").string() << "\n";
    return counts.converted > 0 ? kExitOk : kExitUsage;
}

}  // namespace kp::cli
