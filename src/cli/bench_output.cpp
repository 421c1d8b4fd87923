#include "cli/bench_output.h"

#include <ctime>

#include <fmt/format.h>

#include "common/files.h"
#include "eval/gpu_pool.h"

namespace kp::cli {

namespace fs = std::filesystem;

nlohmann::json BenchPlan::to_json() const {
    return {{"tasks_dir", tasks_dir}, {"suite", suite}, {"index", shard_index}, {"count", shard_count}, {"problems", problems}};
}

std::optional<BenchPlan> BenchPlan::from_json(const nlohmann::json& j) {
    if (!j.is_object() || !j.contains("problems") || !j["problems"].is_array()) return std::nullopt;
    BenchPlan plan;
    plan.tasks_dir = j.value("tasks_dir", "");
    plan.suite = j.value("suite", "");
    plan.shard_index = j.value("index", 0);
    plan.shard_count = j.value("count", 1);
    for (const auto& p : j["problems"])
        if (p.is_string()) plan.problems.push_back(p.get<std::string>());
    return plan;
}

BenchManifest::BenchManifest(fs::path path) : path_(std::move(path)) {
    auto text = read_text_file(path_);
    if (text.ok()) data_ = nlohmann::json::parse(*text, nullptr, false);
    if (!data_.is_object()) data_ = {{"schema", "kernelpro.bench-manifest/1"}, {"problems", nlohmann::json::object()}};
    if (!data_["problems"].is_object()) data_["problems"] = nlohmann::json::object();
}

std::optional<kernelbench::BenchProblemResult> BenchManifest::finished(const std::string& folder) const {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto& p = data_["problems"];
    if (p.contains(folder) && p[folder].is_object() && p[folder].contains("result"))
        return kernelbench::BenchProblemResult::from_json(p[folder]["result"]);
    return std::nullopt;
}

std::optional<std::int64_t> BenchManifest::run_of(const std::string& folder) const {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto& p = data_["problems"];
    if (p.contains(folder) && p[folder].is_object() && p[folder].contains("run_id") && p[folder]["run_id"].is_number_integer())
        return p[folder]["run_id"].get<std::int64_t>();
    return std::nullopt;
}

std::optional<BenchPlan> BenchManifest::plan() const {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!data_.contains("plan")) return std::nullopt;
    return BenchPlan::from_json(data_["plan"]);
}

void BenchManifest::set_plan(const BenchPlan& plan) {
    std::lock_guard<std::mutex> lock(mutex_);
    data_["plan"] = plan.to_json();
    save();
}

void BenchManifest::set_run(const std::string& folder, std::int64_t run) {
    std::lock_guard<std::mutex> lock(mutex_);
    data_["problems"][folder]["run_id"] = run;
    save();
}

void BenchManifest::set_result(const std::string& folder, const kernelbench::BenchProblemResult& row) {
    std::lock_guard<std::mutex> lock(mutex_);
    nlohmann::json& entry = data_["problems"][folder];
    if (!entry.is_object()) entry = nlohmann::json::object();
    if (row.status == "interrupted" || row.status == "error") entry.erase("result");
    else entry["result"] = row.to_json();
    save();
}

void BenchManifest::save() { (void)write_file_atomically(path_, data_.dump(2) + "\n"); }

std::string bench_table_title(const std::string& tasks_dir, size_t problems) {
    return fmt::format("kernelpro bench: {} ({} problems)", tasks_dir, problems);
}

void write_bench_table(const fs::path& out, const std::vector<kernelbench::BenchProblemResult>& rows, const std::string& title,
                       const std::string& suite, const GpuPool* pool) {
    std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char created[32];
    std::strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &tm);
    (void)write_file_atomically(out / "results.md",
                                kernelbench::bench_table_markdown(rows, title) + (pool ? "\n" + pool->summary_markdown() : ""));
    nlohmann::json json = kernelbench::bench_table_json(rows, suite, created);
    if (pool) json["gpu_pool"] = pool->to_json();
    (void)write_file_atomically(out / "results.json", json.dump(2) + "\n");
}

}  // namespace kp::cli
