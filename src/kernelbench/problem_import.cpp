#include "kernelbench/problem_import.h"

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <thread>

#include "common/files.h"
#include "common/process.h"
#include "eval/python_environment.h"
#include "task/task_toml_writer.h"

namespace kp::kernelbench {

namespace fs = std::filesystem;

const char* import_status_name(ImportStatus status) {
    switch (status) {
        case ImportStatus::converted: return "converted";
        case ImportStatus::unconvertible: return "unconvertible";
        case ImportStatus::error: return "error";
    }
    return "error";
}

namespace {

// Writes task.toml and import.json for a converted problem and loads the task back.
void finish_converted(ImportOutcome& outcome, const nlohmann::json& facts) {
    auto task = task_from_import(facts, outcome.job.task_dir, outcome.job.naming);
    Status written = task.ok() ? write_file_atomically(outcome.job.task_dir / "task.toml", task_to_toml(*task)) : Status(task.error());
    if (written.ok()) written = write_file_atomically(outcome.job.task_dir / "import.json", facts.dump(2) + "\n");
    auto loaded = written.ok() ? load_task(outcome.job.task_dir) : Result<TaskSpec>(written.error());
    if (!loaded.ok()) {
        outcome.status = ImportStatus::error;
        outcome.reason = "the written task does not load: " + loaded.error().message;
        return;
    }
    outcome.flags = loaded->flags;
    outcome.notes = loaded->origin ? loaded->origin->notes : std::vector<std::string>{};
}

ImportOutcome outcome_from(const ImportJob& job, const nlohmann::json& facts) {
    ImportOutcome outcome;
    outcome.job = job;
    outcome.seconds = facts.value("seconds", 0.0);
    outcome.constant_check = facts.value("constant_check", nlohmann::json());
    std::string status = facts.value("status", "error");
    if (status == "converted") {
        outcome.status = ImportStatus::converted;
        finish_converted(outcome, facts);
    } else {
        outcome.status = status == "unconvertible" ? ImportStatus::unconvertible : ImportStatus::error;
        outcome.reason = facts.value("reason", "no reason given");
    }
    return outcome;
}

// One Python process over `jobs`; returns the result lines it wrote (possibly fewer than jobs).
Result<std::vector<nlohmann::json>> run_batch(const std::vector<ImportJob>& jobs, const ImportOptions& options,
                                              const std::string& python, const fs::path& package, std::string& failure) {
    auto scratch = ScratchDirectory::create("kp-import");
    if (!scratch.ok()) return scratch.error();
    nlohmann::json request{{"precision", options.precision}, {"check_constant", options.check_constant}};
    request["problems"] = nlohmann::json::array();
    for (const auto& job : jobs) request["problems"].push_back({{"file", fs::absolute(job.file).string()}, {"out", job.task_dir.string()}});
    fs::path request_file = scratch->path() / "request.json", results_file = scratch->path() / "results.jsonl";
    if (auto w = write_file_atomically(request_file, request.dump()); !w.ok()) return w.error();
    ProcessOptions process;
    process.timeout = std::chrono::seconds(120 + 300 * jobs.size());
    const char* existing = std::getenv("PYTHONPATH");
    process.extra_environment["PYTHONPATH"] = package.string() + (existing && *existing ? std::string(":") + existing : "");
    auto run = run_process({python, "-m", "kernelpro_torch.import_cli", request_file.string(), results_file.string()}, process);
    if (!run.ok()) return run.error();
    if (!run->succeeded()) {
        std::string tail = run->stderr_text.size() > 600 ? run->stderr_text.substr(run->stderr_text.size() - 600) : run->stderr_text;
        failure = "the Python importer " + run->describe_failure() + (tail.empty() ? "" : ": " + tail);
    }
    std::vector<nlohmann::json> results;
    std::ifstream in(results_file);
    for (std::string line; std::getline(in, line);) {
        try {
            results.push_back(nlohmann::json::parse(line));
        } catch (const std::exception&) {
            break;  // a line cut short by a crash
        }
    }
    return results;
}

}  // namespace

namespace {

// Imports jobs[begin, end) in as few Python processes as it takes: a process that dies costs the
// problem it was on (reported), and a new one goes on with the rest. False when Python cannot
// import torch at all.
bool import_range(const std::vector<ImportJob>& jobs, size_t begin, size_t end, const ImportOptions& options,
                  const std::string& python, const fs::path& package, std::vector<ImportOutcome>& outcomes,
                  const std::function<void(const ImportOutcome&)>& report) {
    size_t next = begin;
    while (next < end) {
        std::vector<ImportJob> batch(jobs.begin() + static_cast<std::ptrdiff_t>(next), jobs.begin() + static_cast<std::ptrdiff_t>(end));
        std::string failure;
        auto results = run_batch(batch, options, python, package, failure);
        if (!results.ok()) failure = results.error().message;
        size_t got = results.ok() ? std::min(results->size(), batch.size()) : 0;
        for (size_t i = 0; i < got; ++i) {
            outcomes[next + i] = outcome_from(batch[i], (*results)[i]);
            report(outcomes[next + i]);
        }
        next += got;
        if (next < end) {
            if (got == 0 && failure.find("No module named 'torch'") != std::string::npos) return false;
            ImportOutcome& lost = outcomes[next];
            lost.job = jobs[next];
            lost.reason = failure.empty() ? "the Python importer stopped without a result for this problem" : failure;
            report(lost);
            ++next;
        }
    }
    return true;
}

}  // namespace

Result<std::vector<ImportOutcome>> import_problems(const std::vector<ImportJob>& jobs, const ImportOptions& options) {
    auto python = python_executable();
    if (!python.ok()) return python.error();
    auto package = python_package_directory();
    if (!package.ok()) return package.error();
    std::vector<ImportOutcome> outcomes(jobs.size());
    const size_t batch = std::max<size_t>(1, options.batch);
    std::mutex mutex;
    size_t next_batch = 0;
    std::atomic<bool> no_torch{false};
    auto report = [&](const ImportOutcome& o) {
        std::lock_guard<std::mutex> lock(mutex);
        if (options.on_outcome) options.on_outcome(o);
    };
    auto work = [&] {
        for (;;) {
            size_t begin;
            {
                std::lock_guard<std::mutex> lock(mutex);
                begin = next_batch;
                next_batch += batch;
            }
            if (begin >= jobs.size() || no_torch.load()) return;
            if (!import_range(jobs, begin, std::min(jobs.size(), begin + batch), options, *python, *package, outcomes, report))
                no_torch.store(true);
        }
    };
    std::vector<std::thread> threads;
    for (int t = 0; t < std::max(1, options.jobs); ++t) threads.emplace_back(work);
    for (auto& t : threads) t.join();
    if (no_torch.load())
        return make_error(*python + " cannot import torch: PyTorch tasks need it (set KERNELPRO_PYTHON to a Python that has it)");
    return outcomes;
}

}  // namespace kp::kernelbench
