#include "report/report_file.h"

#include "common/files.h"
#include "report/bench_report_model.h"
#include "report/run_report_model.h"

namespace kp::report {

namespace {
Result<HtmlReport> write_model(const Result<nlohmann::json>& model, const std::filesystem::path& out) {
    if (!model.ok()) return model.error();
    HtmlReport report = render_report_html(*model, load_javascript_libraries());
    std::error_code ec;
    if (out.has_parent_path()) std::filesystem::create_directories(out.parent_path(), ec);
    if (auto written = write_file_atomically(out, report.html); !written.ok()) return written.error();
    return report;
}
}  // namespace

Result<HtmlReport> write_run_report(store::RunStore& store, std::int64_t run_id, const std::filesystem::path& out) {
    return write_model(run_report_model(store, run_id), out);
}

Result<HtmlReport> write_bench_report(const std::filesystem::path& results_folder, const std::filesystem::path& out) {
    return write_model(bench_report_model(results_folder), out);
}

}  // namespace kp::report
