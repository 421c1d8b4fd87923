#include "kernelbench/bench_table.h"

#include <cmath>
#include <map>

#include <fmt/format.h>

namespace kp::kernelbench {

namespace {

const double kPs[] = {0.0, 1.0, 1.2, 2.0};

std::optional<double> ratio(const std::optional<double>& baseline, const std::optional<double>& best) {
    if (baseline && best && *baseline > 0 && *best > 0) return *baseline / *best;
    return std::nullopt;
}

nlohmann::json opt(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }
std::optional<double> opt_from(const nlohmann::json& j, const char* key) {
    return j.contains(key) && j[key].is_number() ? std::optional<double>(j[key].get<double>()) : std::nullopt;
}

void fill_fast(std::vector<FastP>& out, const std::vector<const BenchProblemResult*>& group,
               std::optional<double> (BenchProblemResult::*speedup)() const) {
    for (double p : kPs) {
        FastP f{p, 0, static_cast<int>(group.size()), 0};
        for (const auto* r : group) {
            auto s = (r->*speedup)();
            f.timed += s.has_value();
            if (r->correct && (p == 0.0 || (s && *s > p))) ++f.count;
        }
        out.push_back(f);
    }
}

std::optional<double> geomean(const std::vector<const BenchProblemResult*>& group,
                              std::optional<double> (BenchProblemResult::*speedup)() const, int& count) {
    double log_sum = 0;
    count = 0;
    for (const auto* r : group)
        if (auto s = (r->*speedup)(); r->correct && s) {
            log_sum += std::log(*s);
            ++count;
        }
    if (count == 0) return std::nullopt;
    return std::exp(log_sum / count);
}

GroupSummary summarize_group(const std::string& name, bool without_degenerate, const std::vector<const BenchProblemResult*>& group) {
    GroupSummary g;
    g.group = name;
    g.without_degenerate = without_degenerate;
    g.problems = static_cast<int>(group.size());
    for (const auto* r : group) g.correct += r->correct;
    fill_fast(g.fast_eager, group, &BenchProblemResult::speedup_over_eager);
    fill_fast(g.fast_compile, group, &BenchProblemResult::speedup_over_compile);
    g.geomean_eager = geomean(group, &BenchProblemResult::speedup_over_eager, g.geomean_eager_count);
    g.geomean_compile = geomean(group, &BenchProblemResult::speedup_over_compile, g.geomean_compile_count);
    return g;
}

std::string ms(const std::optional<double>& seconds) { return seconds ? fmt::format("{:.4g}", *seconds * 1e3) : "-"; }
std::string times(const std::optional<double>& x) { return x ? fmt::format("{:.2f}x", *x) : "-"; }
std::string cell(std::string text) {
    for (char& c : text)
        if (c == '|' || c == '\n') c = ' ';
    return text.size() > 120 ? text.substr(0, 117) + "..." : text;
}

}  // namespace

std::optional<double> BenchProblemResult::speedup_over_eager() const { return ratio(eager_seconds, best_seconds); }
std::optional<double> BenchProblemResult::speedup_over_compile() const { return ratio(compile_seconds, best_seconds); }

nlohmann::json BenchProblemResult::to_json() const {
    // The field names kernelpro report reads (docs/report.md), and more.
    return {{"name", task}, {"level", level}, {"degenerate", degenerate}, {"correct", correct}, {"status", status},
            {"reason", reason}, {"eager_seconds", opt(eager_seconds)}, {"compile_seconds", opt(compile_seconds)},
            {"kernel_seconds", opt(best_seconds)}, {"speedup_vs_eager", opt(speedup_over_eager())},
            {"speedup_vs_compile", opt(speedup_over_compile())}, {"roofline_fraction", opt(roofline_fraction)},
            {"evaluations", evaluations}, {"tokens", tokens}, {"cost_usd", cost_usd}, {"gpu_seconds", gpu_seconds},
            {"run_id", run_id}, {"device", device}};
}

BenchProblemResult BenchProblemResult::from_json(const nlohmann::json& j) {
    BenchProblemResult r;
    r.task = j.value("name", "");
    r.level = j.value("level", 0);
    r.degenerate = j.value("degenerate", false);
    r.correct = j.value("correct", false);
    r.status = j.value("status", "");
    r.reason = j.value("reason", "");
    r.eager_seconds = opt_from(j, "eager_seconds");
    r.compile_seconds = opt_from(j, "compile_seconds");
    r.best_seconds = opt_from(j, "kernel_seconds");
    r.roofline_fraction = opt_from(j, "roofline_fraction");
    r.evaluations = j.value("evaluations", int64_t{0});
    r.tokens = j.value("tokens", int64_t{0});
    r.cost_usd = j.value("cost_usd", 0.0);
    r.gpu_seconds = j.value("gpu_seconds", 0.0);
    r.run_id = j.value("run_id", int64_t{0});
    r.device = j.value("device", "");
    return r;
}

std::vector<GroupSummary> summarize_bench(const std::vector<BenchProblemResult>& results) {
    std::map<int, std::vector<const BenchProblemResult*>> by_level;
    for (const auto& r : results) by_level[r.level].push_back(&r);
    std::vector<GroupSummary> out;
    for (bool without : {false, true}) {
        auto keep = [&](const std::vector<const BenchProblemResult*>& group) {
            std::vector<const BenchProblemResult*> kept;
            for (const auto* r : group)
                if (!without || !r->degenerate) kept.push_back(r);
            return kept;
        };
        for (const auto& [level, group] : by_level)
            if (by_level.size() > 1 || level != 0)
                out.push_back(summarize_group(level ? fmt::format("level {}", level) : "other", without, keep(group)));
        std::vector<const BenchProblemResult*> all;
        for (const auto& r : results) all.push_back(&r);
        out.push_back(summarize_group("all", without, keep(all)));
    }
    return out;
}

std::string bench_table_markdown(const std::vector<BenchProblemResult>& results, const std::string& title) {
    std::string md = "# " + title + "\n\n";
    md += "| problem | level | result | eager ms | compile ms | best ms | vs eager | vs compile | % of floor | evals | tokens | $ | GPU s |\n";
    md += "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (const auto& r : results) {
        std::string result = r.correct ? "correct" : cell(r.status + (r.reason.empty() ? "" : ": " + r.reason));
        if (r.degenerate) result += " (degenerate)";
        md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.2f} | {:.1f} |\n", r.task,
                          r.level ? std::to_string(r.level) : "-", result, ms(r.eager_seconds), ms(r.compile_seconds),
                          ms(r.best_seconds), times(r.speedup_over_eager()), times(r.speedup_over_compile()),
                          r.roofline_fraction ? fmt::format("{:.0f}%", *r.roofline_fraction * 100) : "-", r.evaluations, r.tokens,
                          r.cost_usd, r.gpu_seconds);
    }
    md += "\nfast_p = share of the group's problems that are correct and more than p times faster (counts: k/N).\n\n";
    md += "| group | problems | correct | fast_0 | fast_1 eager | fast_1.2 eager | fast_2 eager | fast_1 compile | fast_1.2 compile | "
          "fast_2 compile | geomean vs eager | geomean vs compile |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (const auto& g : summarize_bench(results)) {
        auto fp = [](const FastP& f) { return fmt::format("{}/{}", f.count, f.total); };
        auto gm = [](const std::optional<double>& v, int n) { return v ? fmt::format("{:.2f}x (n={})", *v, n) : fmt::format("- (n={})", n); };
        md += fmt::format("| {}{} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", g.group,
                          g.without_degenerate ? " without degenerate" : "", g.problems, g.correct, fp(g.fast_eager[0]),
                          fp(g.fast_eager[1]), fp(g.fast_eager[2]), fp(g.fast_eager[3]), fp(g.fast_compile[1]), fp(g.fast_compile[2]),
                          fp(g.fast_compile[3]), gm(g.geomean_eager, g.geomean_eager_count),
                          gm(g.geomean_compile, g.geomean_compile_count));
    }
    return md;
}

nlohmann::json bench_table_json(const std::vector<BenchProblemResult>& results, const std::string& suite, const std::string& created_at) {
    std::string device;
    for (const auto& r : results)
        if (device.empty()) device = r.device;
    nlohmann::json j{{"schema", "kernelpro.bench/1"}, {"suite", suite}, {"device", device}, {"created_at", created_at},
                     {"problems", nlohmann::json::array()}, {"groups", nlohmann::json::array()}};
    for (const auto& r : results) j["problems"].push_back(r.to_json());
    for (const auto& g : summarize_bench(results)) {
        auto fast = [](const std::vector<FastP>& list) {
            nlohmann::json a = nlohmann::json::array();
            for (const auto& f : list)
                a.push_back({{"p", f.p}, {"count", f.count}, {"total", f.total}, {"timed", f.timed},
                             {"rate", f.total ? static_cast<double>(f.count) / f.total : 0.0}});
            return a;
        };
        j["groups"].push_back({{"group", g.group}, {"without_degenerate", g.without_degenerate}, {"problems", g.problems},
                               {"correct", g.correct}, {"fast_p_eager", fast(g.fast_eager)}, {"fast_p_compile", fast(g.fast_compile)},
                               {"geomean_speedup_eager", opt(g.geomean_eager)}, {"geomean_eager_count", g.geomean_eager_count},
                               {"geomean_speedup_compile", opt(g.geomean_compile)},
                               {"geomean_compile_count", g.geomean_compile_count}});
    }
    return j;
}

}  // namespace kp::kernelbench
