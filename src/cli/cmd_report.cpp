// kernelpro report RUN [--out FILE.html] [--store PATH]     one optimization run of the run store
// kernelpro report DIR [--out FILE.html]                    a `kernelpro bench` results folder
// One self-contained HTML page (no network needed to open it; see docs/report.md).
// Exit codes: 0 written, 2 unknown run or not a results folder, 3 no store or the file cannot be written.
#include <iostream>

#include "cli/commands.h"
#include "report/report_file.h"

namespace kp::cli {

namespace {
struct ReportArgs {
    std::string what, out, store;
};

int finish(const Result<report::HtmlReport>& written, const std::filesystem::path& out, int error_code) {
    if (!written.ok()) {
        std::cerr << "error: " << written.error().message << "\n";
        return error_code;
    }
    for (const auto& notice : written->notices) std::cerr << "note: " << notice << "\n";
    std::cout << out.string() << "\n";
    return kExitOk;
}

int report_run(const ReportArgs& a, std::int64_t run_id) {
    std::filesystem::path store_path =
        a.store.empty() ? store::RunStore::default_path(std::filesystem::current_path()) : std::filesystem::path(a.store);
    if (!std::filesystem::exists(store_path)) {
        std::cerr << "error: no run store at " << store_path.string() << " (pass --store, or run `kernelpro optimize` first)\n";
        return kExitEnvironment;
    }
    auto store = store::RunStore::open(store_path);
    if (!store.ok()) {
        std::cerr << "error: run store " << store_path.string() << ": " << store.error().message << "\n";
        return kExitEnvironment;
    }
    if (!store->load_run(run_id).ok()) {
        std::cerr << "error: no run " << run_id << " in " << store_path.string() << " (see `kernelpro runs list`)\n";
        return kExitUsage;
    }
    std::filesystem::path out = a.out.empty() ? std::filesystem::path("kernelpro-report-run" + std::to_string(run_id) + ".html") : std::filesystem::path(a.out);
    return finish(report::write_run_report(*store, run_id, out), out, kExitEnvironment);
}

std::optional<std::int64_t> run_id_of(const std::string& text) {
    if (text.empty() || text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    return std::stoll(text);
}
}  // namespace

Handler register_report(CLI::App& root) {
    auto* cmd = root.add_subcommand("report", "One self-contained HTML report of a run (tree, charts, roofline, diff, LLM) or a bench results folder");
    auto a = std::make_shared<ReportArgs>();
    cmd->add_option("what", a->what, "Run id (from `kernelpro runs list`) or a `kernelpro bench` results folder")->required();
    cmd->add_option("--out", a->out, "HTML file to write (default: kernelpro-report-runID.html, or DIR/report.html)");
    cmd->add_option("--store", a->store, "Run store (default: .kernelpro/runs.db in the current folder)");
    return [a]() -> int {
        try {
            if (auto id = run_id_of(a->what)) return report_run(*a, *id);
            std::error_code ec;
            if (!std::filesystem::is_directory(a->what, ec)) {
                std::cerr << "error: " << a->what << " is neither a run id nor a bench results folder\n";
                return kExitUsage;
            }
            std::filesystem::path out = a->out.empty() ? std::filesystem::path(a->what) / "report.html" : std::filesystem::path(a->out);
            return finish(report::write_bench_report(a->what, out), out, kExitUsage);
        } catch (const std::exception& e) {  // a store or results file that parses but holds the wrong types
            std::cerr << "error: cannot read what the report needs: " << e.what() << "\n";
            return kExitEnvironment;
        }
    };
}

}  // namespace kp::cli
