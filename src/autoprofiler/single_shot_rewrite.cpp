#include "autoprofiler/single_shot_rewrite.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "agents/llm_proposer.h"
#include "autoprofiler/tuning_record.h"
#include "common/files.h"
#include "common/hash.h"
#include "search/proposers/parameter_space.h"

namespace kp::autoprofiler {

namespace fs = std::filesystem;

std::string rewrite_key(const KernelRecord& kernel, const search::Candidate& rewrite) {
    return kernel.name + "|" + sha256_hex(rewrite.source) + "|" + search::point_text(rewrite.params);
}

namespace {

class RecordedJudge : public RewriteJudge {
public:
    RecordedJudge(std::map<std::string, RewriteVerdict> verdicts, fs::path file) : verdicts_(std::move(verdicts)), file_(std::move(file)) {}
    std::string describe() const override { return "verdicts recorded in " + file_.string(); }
    Result<RewriteVerdict> judge(const KernelRecord& kernel, const search::Candidate& rewrite) override {
        const std::string key = rewrite_key(kernel, rewrite);
        auto it = verdicts_.find(key);
        if (it == verdicts_.end())
            return make_error(fmt::format("{}: no verdict for {} (this rewrite was never judged on the GPU; record it with --judge gpu)",
                                          file_.string(), key));
        return it->second;
    }

private:
    std::map<std::string, RewriteVerdict> verdicts_;
    fs::path file_;
};

class RecordingJudge : public RewriteJudge {
public:
    RecordingJudge(std::shared_ptr<RewriteJudge> inner, fs::path file) : inner_(std::move(inner)), file_(std::move(file)) {}
    std::string describe() const override { return inner_->describe() + ", recorded to " + file_.string(); }
    Result<RewriteVerdict> judge(const KernelRecord& kernel, const search::Candidate& rewrite) override {
        auto verdict = inner_->judge(kernel, rewrite);
        if (!verdict) return verdict;
        const nlohmann::json line = {{"key", rewrite_key(kernel, rewrite)}, {"kernel", kernel.name}, {"correct", verdict->correct},
                                     {"median_seconds", verdict->median_seconds}, {"message", verdict->message}};
        // One line per verdict, flushed at once: an interrupted run keeps what it judged.
        std::ofstream out(file_, std::ios::app);
        out << line.dump() << "\n";
        if (!out.flush()) return make_error("cannot append to " + file_.string());
        return verdict;
    }

private:
    std::shared_ptr<RewriteJudge> inner_;
    fs::path file_;
};

}  // namespace

Result<std::shared_ptr<RewriteJudge>> recorded_rewrite_judge(const fs::path& file) {
    auto text = read_text_file(file);
    if (!text) return make_error("rewrite verdicts: " + text.error().message);
    std::map<std::string, RewriteVerdict> verdicts;
    std::istringstream lines(*text);
    int number = 0;
    for (std::string line; std::getline(lines, line);) {
        ++number;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        const auto j = nlohmann::json::parse(line, nullptr, false);
        if (j.is_discarded() || !j.is_object() || !j.contains("key") || !j["key"].is_string() || !j.contains("correct") ||
            !j["correct"].is_boolean())
            return make_error(fmt::format("{}:{}: not a verdict (a JSON object with a string \"key\" and a boolean \"correct\")", file.string(), number));
        RewriteVerdict v;
        v.correct = j["correct"].get<bool>();
        v.median_seconds = j.value("median_seconds", 0.0);
        v.message = j.value("message", "");
        if (v.correct && !(v.median_seconds > 0))
            return make_error(fmt::format("{}:{}: a correct verdict needs median_seconds > 0", file.string(), number));
        verdicts[j["key"].get<std::string>()] = std::move(v);  // a later line replaces an earlier one
    }
    return std::shared_ptr<RewriteJudge>(std::make_shared<RecordedJudge>(std::move(verdicts), file));
}

std::shared_ptr<RewriteJudge> recording_rewrite_judge(std::shared_ptr<RewriteJudge> inner, fs::path file) {
    return std::make_shared<RecordingJudge>(std::move(inner), std::move(file));
}

llm::CoderInput rewrite_request(const KernelRecord& kernel, const std::string& feedback) {
    const TuningTable& table = *kernel.tuning;
    llm::CoderInput input;
    input.task = table.task;
    std::string defines;
    for (const auto& [name, value] : table.start) defines += fmt::format(" -D{}={}", name, value);
    input.plan = "Rewrite this kernel once to make it faster, guided by the profile below; there is no second try. It is built"
                 " now with" + defines + " (its kp:tune parameters): a parameter your version still declares keeps that value.";
    if (!feedback.empty()) input.findings.push_back(feedback);
    input.source = table.source;
    return input;
}

SingleShotRewrite::SingleShotRewrite(std::shared_ptr<const llm::LlmAgents> agents, std::shared_ptr<RewriteJudge> judge, double cost_weight)
    : agents_(std::move(agents)), judge_(std::move(judge)), cost_weight_(cost_weight) {}

Result<RewriteOutcome> SingleShotRewrite::rewrite(const KernelRecord& kernel, const std::string& feedback) const {
    std::lock_guard lock(mutex_);
    const auto asked = asked_.find({kernel.name, feedback});
    if (asked != asked_.end()) return asked->second;
    RewriteOutcome out;
    ++calls_;
    auto code = agents_->coder(rewrite_request(kernel, feedback));
    if (!code) {
        out.message = "no usable rewrite: " + code.error().message;
    } else {
        search::Candidate candidate{code->source, agents::carry_parameters(kernel.tuning->start, code->tunables, code->source)};
        out.key = rewrite_key(kernel, candidate);
        auto verdict = judge_->judge(kernel, candidate);
        if (!verdict) return make_error(kernel.name + ": " + verdict.error().message);
        out.correct = verdict->correct;
        out.message = verdict->message;
        // The start judged by the same judge (the same GPU and session as the rewrite's time, not the table's).
        auto start = starts_.find(kernel.name);
        if (start == starts_.end()) {
            auto judged = judge_->judge(kernel, {kernel.tuning->source, kernel.tuning->start});
            if (!judged) return make_error(kernel.name + " (the start): " + judged.error().message);
            if (!judged->correct) return make_error(kernel.name + ": the start kernel failed its check: " + judged->message);
            start = starts_.emplace(kernel.name, judged->median_seconds).first;
        }
        if (verdict->correct) out.speedup = start->second / verdict->median_seconds;
    }
    asked_.emplace(std::make_pair(kernel.name, feedback), out);
    return out;
}

Score SingleShotRewrite::score(const std::vector<KernelRecord>& kernels, const std::vector<TreeOutcome>& outcomes, const Budget& budget) const {
    Score s;
    const double share = add_costs(s, outcomes, budget);
    double log_sum = 0;
    for (size_t i = 0; i < kernels.size() && i < outcomes.size(); ++i) {
        if (!kernels[i].tuning) continue;
        auto r = rewrite(kernels[i], outcomes[i].feedback);
        if (!r) {
            s.error = r.error().message;
            return s;
        }
        ++s.tuned;
        s.rewritten += r->correct;
        log_sum += std::log2(r->speedup);
    }
    const double mean_log = s.tuned ? log_sum / s.tuned : 0.0;
    s.tuner_speedup = std::exp2(mean_log);
    s.value = mean_log - cost_weight_ * share;
    return s;
}

}  // namespace kp::autoprofiler
