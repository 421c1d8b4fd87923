#include "kernelbench/import_report.h"

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

#include "common/files.h"

namespace kp::kernelbench {

namespace {
bool degenerate(const ImportOutcome& o) {
    return std::find(o.flags.begin(), o.flags.end(), "degenerate") != o.flags.end();
}
bool unchecked(const ImportOutcome& o) { return o.status == ImportStatus::converted && o.constant_check.contains("skipped"); }
}  // namespace

ImportCounts count_outcomes(const std::vector<ImportOutcome>& outcomes) {
    ImportCounts c;
    c.problems = outcomes.size();
    for (const auto& o : outcomes) {
        c.converted += o.status == ImportStatus::converted;
        c.unconvertible += o.status == ImportStatus::unconvertible;
        c.errors += o.status == ImportStatus::error;
        c.degenerate += degenerate(o);
        c.constant_unchecked += unchecked(o);
    }
    return c;
}

std::string import_report_markdown(const std::vector<ImportOutcome>& outcomes, const std::string& title) {
    ImportCounts c = count_outcomes(outcomes);
    std::string md = fmt::format("# {}\n\n{} problems: {} converted, {} unconvertible, {} errors; {} flagged degenerate", title,
                                 c.problems, c.converted, c.unconvertible, c.errors, c.degenerate);
    if (c.constant_unchecked) md += fmt::format(" ({} not checked for constant outputs)", c.constant_unchecked);
    md += ".\n\n| problem | status | task or reason | flags |\n|---|---|---|---|\n";
    for (const auto& o : outcomes) {
        std::string what = o.status == ImportStatus::converted ? o.job.naming.name : o.reason;
        std::replace(what.begin(), what.end(), '|', '/');
        std::replace(what.begin(), what.end(), '\n', ' ');
        std::string flags;
        for (const auto& f : o.flags) flags += (flags.empty() ? "" : ", ") + f;
        if (unchecked(o)) flags += std::string(flags.empty() ? "" : ", ") + "constant check skipped";
        md += fmt::format("| {} | {} | {} | {} |\n", o.job.file.filename().string(), import_status_name(o.status), what, flags);
    }
    return md;
}

nlohmann::json import_report_json(const std::vector<ImportOutcome>& outcomes) {
    ImportCounts c = count_outcomes(outcomes);
    nlohmann::json j{{"schema", "kernelpro.import/1"},
                     {"counts", {{"problems", c.problems}, {"converted", c.converted}, {"unconvertible", c.unconvertible},
                                 {"errors", c.errors}, {"degenerate", c.degenerate}, {"constant_unchecked", c.constant_unchecked}}}};
    j["problems"] = nlohmann::json::array();
    for (const auto& o : outcomes) {
        nlohmann::json p{{"file", o.job.file.string()}, {"status", import_status_name(o.status)}, {"seconds", o.seconds}};
        if (o.status == ImportStatus::converted) p["task"] = o.job.task_dir.string();
        else p["reason"] = o.reason;
        p["flags"] = o.flags;
        p["notes"] = o.notes;
        if (!o.constant_check.is_null()) p["constant_check"] = o.constant_check;
        j["problems"].push_back(p);
    }
    return j;
}

Result<std::vector<ImportOutcome>> import_and_report(const std::vector<ImportJob>& jobs, ImportOptions options,
                                                     const std::filesystem::path& out_dir, const std::string& title, bool quiet) {
    size_t done = 0;
    if (!quiet)
        options.on_outcome = [&](const ImportOutcome& o) {
            ++done;
            std::string what = o.status == ImportStatus::converted ? o.job.task_dir.string() : o.reason;
            for (const auto& f : o.flags) what += " [" + f + "]";
            std::fprintf(stderr, "[%zu/%zu] %s: %s: %s\n", done, jobs.size(), o.job.file.filename().string().c_str(),
                         import_status_name(o.status), what.c_str());
        };
    auto outcomes = import_problems(jobs, options);
    if (!outcomes.ok()) return outcomes.error();
    std::error_code ec;
    std::filesystem::create_directories(out_dir, ec);
    auto md = write_file_atomically(out_dir / "import-report.md", import_report_markdown(*outcomes, title));
    if (!md.ok()) return md.error();
    auto json = write_file_atomically(out_dir / "import-report.json", import_report_json(*outcomes).dump(2) + "\n");
    if (!json.ok()) return json.error();
    return outcomes;
}

}  // namespace kp::kernelbench
