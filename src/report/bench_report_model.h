// The model of a `kernelpro bench` results folder for the report page: DIR/results.json, read
// against the schema documented in docs/report.md ("problems": one object per problem with its
// status, eager / torch.compile / kernel times and speedups). Unknown fields are ignored; a
// missing or malformed file is an error that says what was expected.
#pragma once

#include <filesystem>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace kp::report {

Result<nlohmann::json> bench_report_model(const std::filesystem::path& results_folder);

}  // namespace kp::report
