// The account of one import run (OUT/import-report.md and .json): how many problems became tasks,
// which did not and the one reason for each, and which tasks are flagged degenerate. Nothing is
// left out silently.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernelbench/problem_import.h"

namespace kp::kernelbench {

struct ImportCounts {
    size_t problems = 0, converted = 0, unconvertible = 0, errors = 0, degenerate = 0, constant_unchecked = 0;
};

ImportCounts count_outcomes(const std::vector<ImportOutcome>& outcomes);
std::string import_report_markdown(const std::vector<ImportOutcome>& outcomes, const std::string& title);
nlohmann::json import_report_json(const std::vector<ImportOutcome>& outcomes);

// Runs the jobs, prints one progress line per problem on stderr (unless quiet), writes
// OUT/import-report.md and .json; returns the outcomes.
Result<std::vector<ImportOutcome>> import_and_report(const std::vector<ImportJob>& jobs, ImportOptions options,
                                                     const std::filesystem::path& out_dir, const std::string& title, bool quiet);

}  // namespace kp::kernelbench
