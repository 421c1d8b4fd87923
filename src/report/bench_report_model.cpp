#include "report/bench_report_model.h"

#include "common/files.h"

namespace kp::report {

namespace {
using nlohmann::json;

std::string text_field(const json& object, const char* key) {
    return object.contains(key) && object[key].is_string() ? object[key].get<std::string>() : std::string();
}

std::optional<double> number(const json& object, const char* key) {
    if (!object.contains(key) || !object[key].is_number()) return std::nullopt;
    return object[key].get<double>();
}

// One problem, with the speedups derived from the times when the file gives only times.
json problem_row(const json& p) {
    json row = {{"name", text_field(p, "name").empty() ? std::string("?") : text_field(p, "name")}};
    if (p.contains("level") && (p["level"].is_number() || p["level"].is_string())) row["level"] = p["level"];
    row["status"] = text_field(p, "status");
    row["correct"] = p.contains("correct") && p["correct"].is_boolean() ? p["correct"].get<bool>() : row["status"] == "ok";
    for (const char* key : {"eager_seconds", "compile_seconds", "kernel_seconds", "cost_usd", "evaluations", "run_id"})
        if (auto v = number(p, key)) row[key] = *v;
    auto kernel = number(p, "kernel_seconds");
    auto ratio = [&](const char* key, const char* base) {
        if (auto v = number(p, key)) row[key] = *v;
        else if (auto b = number(p, base); b && kernel && *kernel > 0) row[key] = *b / *kernel;
    };
    ratio("speedup_vs_eager", "eager_seconds");
    ratio("speedup_vs_compile", "compile_seconds");
    return row;
}
}  // namespace

Result<json> bench_report_model(const std::filesystem::path& folder) {
    auto path = folder / "results.json";
    auto text = read_text_file(path);
    if (!text.ok()) return make_error(path.string() + ": " + text.error().message + " (a bench results folder holds results.json)");
    json file = json::parse(*text, nullptr, false);
    if (file.is_discarded() || !file.is_object() || !file.contains("problems") || !file["problems"].is_array())
        return make_error(path.string() + ": not a bench results file (expected a JSON object with a \"problems\" array, see docs/report.md)");
    json problems = json::array();
    for (const auto& p : file["problems"])
        if (p.is_object()) problems.push_back(problem_row(p));
    return json{{"kind", "bench"}, {"source", path.string()}, {"suite", text_field(file, "suite")},
                {"device", text_field(file, "device")}, {"created_at", text_field(file, "created_at")},
                {"problems", problems}};
}

}  // namespace kp::report
