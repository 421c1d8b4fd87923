// Writes a report page to a file: for one run of a run store, or for a bench results folder.
// The returned notices name what the page lacks (a missing chart or highlighting library).
#pragma once

#include <cstdint>
#include <filesystem>

#include "common/result.h"
#include "report/html_document.h"
#include "store/run_store.h"

namespace kp::report {

Result<HtmlReport> write_run_report(store::RunStore& store, std::int64_t run_id, const std::filesystem::path& out);
Result<HtmlReport> write_bench_report(const std::filesystem::path& results_folder, const std::filesystem::path& out);

}  // namespace kp::report
