// Tuner benchmark (issue 4): how many evaluations does the profile-guided tuner need to come within
// 3% of the best point of a parameter space, against random search?
//  1. (GPU) every point of the kp:tune space of each task's candidates/tuned.cu is evaluated once,
//     with quick timing; the table (median, status, fraction of floor, ptxas facts) is saved as JSON.
//  2. (CPU) the search is replayed over the recorded table, several seeds: the tuner through the
//     real SearchDriver (MCTS, run store, search memory), random search as sampling without
//     replacement, and the exhaustive enumerator's declared order for reference.
// Usage: bench_tuner [--tasks DIR ...] [--table OUT.json] | --load TABLE.json ... | --synthetic
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <numeric>
#include <random>

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "build/candidate_builder.h"
#include "common/files.h"
#include "eval/evaluator.h"
#include "profile/ptxas_report.h"
#include "search/proposers/parameter_space.h"
#include "search/proposers/tuner_proposer.h"
#include "search/search_driver.h"
#include "search/selection_policy.h"
#include "store/run_store.h"
#include "task/task_spec.h"

using namespace kp;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr double kWithin = 0.03;

struct Space {
    std::string task;
    std::string source;       // tuned.cu text
    ParameterValues start;    // the source's default point
    json points = json::object();  // point text -> {status, median, fraction, roofline_class, compiler}
};

json point_record(const EvaluationReport& report) {
    json r;
    r["status"] = failure_class_name(report.status);
    auto median = report.candidate_median_seconds();
    if (report.status == FailureClass::Ok && median) r["median"] = *median;
    if (report.timing.is_object() && report.timing.contains("fraction_of_floor")) r["fraction"] = report.timing["fraction_of_floor"];
    if (report.timing.is_object() && report.timing.contains("roofline_floor"))
        r["roofline_class"] = report.timing["roofline_floor"].value("bound", std::string()) + "_bound";
    if (report.candidate_build) {
        auto parsed = profile::parse_ptxas_report(report.candidate_build->ptxas_report);
        if (parsed.ok()) {
            search::CompilerFacts facts;
            for (const auto& f : parsed->functions)
                if (f.entry) {
                    facts.registers = std::max(facts.registers, f.registers);
                    facts.spill_bytes = std::max(facts.spill_bytes, f.spill_store_bytes + f.spill_load_bytes);
                }
            r["compiler"] = search::compiler_facts_to_json(facts);
        }
    }
    if (report.status != FailureClass::Ok) r["message"] = report.message.substr(0, 200);
    return r;
}

// Phase 1: the exhaustive sweep on the GPU.
Result<Space> sweep(const fs::path& task_dir, CandidateBuilder& builder, kp::Evaluator& evaluator) {
    auto task = load_task(task_dir);
    if (!task.ok()) return task.error();
    fs::path tuned = task->directory / "candidates" / "tuned.cu";
    auto source = read_text_file(tuned);
    if (!source.ok()) return source.error();
    auto space = parse_tunables(*source);
    if (!space.ok()) return space.error();
    Space out{task->name, *source, search::resolve_point(*source, *space, {}), json::object()};
    auto points = search::enumerate_points(*space);
    // Warm the build cache in parallel first: the sweep then only verifies and times.
    std::vector<BuildRequest> requests;
    for (const auto& p : points) requests.push_back({tuned, p, task->libraries, true});
    builder.build_many(requests);
    EvaluationOptions options;
    options.trials = 2;
    options.timing.stopping.max_seconds = 0.5;
    options.timing.stopping.min_seconds = 0.02;
    for (const auto& p : points) {
        options.candidate_parameters = p;
        auto report = evaluator.evaluate(*task, tuned, options);
        if (!report.ok()) return report.error();
        json r = point_record(*report);
        std::fprintf(stderr, "  %-14s %-40s %-14s %s\n", task->name.c_str(), search::point_text(p).c_str(),
                     r["status"].get<std::string>().c_str(),
                     r.contains("median") ? fmt::format("{:.2f} us", r["median"].get<double>() * 1e6).c_str() : "-");
        out.points[search::point_text(p)] = r;
    }
    return out;
}

// A made-up landscape (for running the simulation without a GPU): a smooth bowl in index space
// around a seeded optimum, spills at the high end of the work-per-thread axis.
Space synthetic_space(const std::string& name, const std::string& source, std::uint64_t seed) {
    auto space = *parse_tunables(source);
    Space out{name, source, search::resolve_point(source, space, {}), json::object()};
    std::mt19937_64 rng(seed);
    std::map<std::string, std::size_t> best;
    for (const auto& p : space.parameters) best[p.name] = std::uniform_int_distribution<std::size_t>(0, p.values.size() - 1)(rng);
    for (const auto& point : search::enumerate_points(space)) {
        double t = 10e-6;
        int regs = 32;
        for (const auto& p : space.parameters) {
            auto i = static_cast<std::size_t>(std::find(p.values.begin(), p.values.end(), point.at(p.name)) - p.values.begin());
            double d = std::abs(static_cast<double>(i) - static_cast<double>(best[p.name]));
            t *= 1.0 + 0.15 * d * d;
            regs += static_cast<int>(i) * 24;
        }
        json r{{"status", "ok"}, {"median", t}, {"fraction", 2e-6 / t}, {"roofline_class", "memory_bound"}};
        if (std::getenv("KP_SYN_FACTS")) r["compiler"] = search::compiler_facts_to_json({regs, regs > 160 ? (regs - 160) * 4 : 0, 0});
        out.points[search::point_text(point)] = r;
    }
    return out;
}

// Replays the recorded table as the search's evaluator, remembering the order of evaluations.
class TableEvaluator : public search::Evaluator {
public:
    explicit TableEvaluator(const Space& space) : space_(space) {}
    Result<search::EvaluationOutcome> evaluate(const search::EvaluationRequest& request) override {
        search::EvaluationOutcome o;
        std::string key = search::point_text(request.candidate.params);
        order.push_back(key);
        if (!space_.points.contains(key)) {
            o.status = search::StatusClass::compile_error;
            o.message = "point not in the table";
            return o;
        }
        const json& r = space_.points[key];
        auto status = parse_failure_class(r.value("status", "Crash"));
        o.status = r.contains("median") ? search::StatusClass::ok : search::StatusClass::crash;
        if (status && *status != FailureClass::Ok) o.status = search::StatusClass::incorrect;
        if (r.contains("median")) o.median_seconds = r["median"].get<double>();
        if (r.contains("fraction")) o.roofline_fraction = std::min(1.0, r["fraction"].get<double>());
        o.roofline_class = r.value("roofline_class", "");
        if (r.contains("compiler")) o.details["compiler"] = r["compiler"];
        return o;
    }
    std::vector<std::string> order;

private:
    const Space& space_;
};

std::optional<double> best_median(const Space& s) {
    std::optional<double> best;
    for (const auto& [k, r] : s.points.items())
        if (r.contains("median") && (!best || r["median"].get<double>() < *best)) best = r["median"].get<double>();
    return best;
}

// 1-based index of the first evaluation within 3% of the best; nullopt if never.
std::optional<int> evals_to_target(const Space& s, const std::vector<std::string>& order, double best) {
    for (std::size_t i = 0; i < order.size(); ++i) {
        if (!s.points.contains(order[i])) continue;
        const json& r = s.points[order[i]];
        if (r.contains("median") && r["median"].get<double>() <= best * (1.0 + kWithin)) return static_cast<int>(i + 1);
    }
    return std::nullopt;
}

Result<std::vector<std::string>> tuner_order(const Space& s, std::uint64_t seed, const std::string& strategy) {
    fs::path db = fs::temp_directory_path() / fmt::format("bench_tuner_{}_{}_{}.db", getpid(), s.task, seed);
    fs::remove(db);
    auto store = store::RunStore::open(db, store::Durability::process_crash_safe);
    if (!store.ok()) return store.error();
    TableEvaluator evaluator(s);
    search::TunerProposer tuner;
    search::SearchDriver driver(*store, evaluator, tuner);
    search::SearchConfig config;
    config.seed = seed;
    config.strategy = strategy;
    config.stop_limits = {{"evaluation_budget", static_cast<double>(s.points.size())}};
    auto outcome = driver.start({s.task, "bench"}, search::Candidate{s.source, s.start}, config);
    if (!outcome.ok()) return outcome.error();
    fs::remove(db);
    fs::remove(fs::path(db.string() + "-wal"));
    fs::remove(fs::path(db.string() + "-shm"));
    return evaluator.order;
}

std::vector<std::string> random_order(const Space& s, std::uint64_t seed) {
    std::vector<std::string> rest;
    std::string start = search::point_text(s.start);
    for (const auto& [k, r] : s.points.items())
        if (k != start) rest.push_back(k);
    std::sort(rest.begin(), rest.end());
    std::mt19937_64 rng(seed * 7919 + 1);
    std::shuffle(rest.begin(), rest.end(), rng);
    rest.insert(rest.begin(), start);  // the baseline is evaluated first, as in the search
    return rest;
}

std::vector<std::string> declared_order(const Space& s) {
    auto space = *parse_tunables(s.source);
    std::vector<std::string> out{search::point_text(s.start)};
    for (const auto& p : search::enumerate_points(space))
        if (search::point_text(p) != out.front()) out.push_back(search::point_text(p));
    return out;
}

struct Stats {
    double mean = 0, median = 0;
    int worst = 0, misses = 0;
};
Stats stats(std::vector<int> v, int misses) {
    Stats s;
    s.misses = misses;
    if (v.empty()) return s;
    std::sort(v.begin(), v.end());
    s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
    s.median = v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
    s.worst = v.back();
    return s;
}
std::string show(const Stats& s) {
    return fmt::format("{:5.1f} / {:4.1f} / {:3d}{}", s.mean, s.median, s.worst, s.misses ? fmt::format(" ({} miss)", s.misses) : "");
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"bench_tuner: evaluations the tuner needs to come within 3% of the exhaustive best, vs random search"};
    std::vector<std::string> tasks;
    std::string table_out;
    std::vector<std::string> loads;
    bool synthetic = false;
    int seeds = 10;
    std::string strategy_name = "both";
    app.add_option("--tasks", tasks, "Task folders (default: 5 example tasks with tuned.cu, under ./tasks)");
    app.add_option("--table", table_out, "Write the exhaustive table here (JSON)");
    app.add_option("--load", loads, "Replay recorded tables (one or more) instead of sweeping on the GPU")->check(CLI::ExistingFile);
    app.add_flag("--synthetic", synthetic, "Made-up landscapes over the tasks' spaces (no GPU): checks the harness");
    app.add_option("--seeds", seeds, "Seeds per space")->capture_default_str();
    app.add_option("--strategy", strategy_name, "mcts | greedy | both")->capture_default_str();
    CLI11_PARSE(app, argc, argv);
    std::vector<std::string> strategies{strategy_name};
    if (strategy_name == "both") strategies = {"mcts", "greedy"};
    else if (auto policy = search::selection_policies().lookup(strategy_name); !policy.ok()) {
        std::cerr << "error: --strategy: " << policy.error().message << "\n";
        return 2;
    }
    if (tasks.empty())
        for (const char* t : {"gelu_f16", "gemm_bf16", "histogram_u8", "jacobi5_f32", "sum_reduce_f32"})
            tasks.push_back((fs::path("tasks") / t).string());  // run from the checkout

    std::vector<Space> spaces;
    if (!loads.empty()) {
        for (const auto& load : loads) {
            auto text = read_text_file(load);
            if (!text.ok()) { std::cerr << text.error().message << "\n"; return 2; }
            json table = json::parse(*text, nullptr, false);
            if (table.is_discarded() || !table.contains("spaces")) { std::cerr << load << ": not a bench_tuner table\n"; return 2; }
            for (const auto& entry : table["spaces"]) {
                Space s{entry["task"], entry["source"], {}, entry["points"]};
                for (const auto& [k, v] : entry["start"].items()) s.start[k] = v.get<std::string>();
                spaces.push_back(std::move(s));
            }
        }
    } else if (synthetic) {
        std::uint64_t n = 0;
        for (const auto& t : tasks) {
            auto task = load_task(t);
            if (!task.ok()) { std::cerr << task.error().message << "\n"; return 2; }
            auto source = read_text_file(task->directory / "candidates" / "tuned.cu");
            if (!source.ok()) { std::cerr << source.error().message << "\n"; return 2; }
            spaces.push_back(synthetic_space(task->name, *source, ++n));
        }
    } else {
        BuilderOptions build_options;
        build_options.arch = detect_gpu_arch();
        CandidateBuilder builder(build_options);
        kp::Evaluator evaluator(builder);
        for (const auto& t : tasks) {
            std::fprintf(stderr, "sweeping %s\n", t.c_str());
            auto s = sweep(t, builder, evaluator);
            if (!s.ok()) { std::cerr << "error: " << t << ": " << s.error().message << "\n"; return 3; }
            spaces.push_back(std::move(*s));
        }
    }
    if (!table_out.empty()) {
        json table{{"schema", "kernelpro.bench_tuner/1"}, {"spaces", json::array()}};
        for (const auto& s : spaces)
            table["spaces"].push_back({{"task", s.task}, {"source", s.source}, {"start", search::params_to_json(s.start)}, {"points", s.points}});
        if (auto w = write_file_atomically(table_out, table.dump(1) + "\n"); !w.ok()) std::cerr << w.error().message << "\n";
    }

    for (auto strategy : strategies) {
        std::printf("Evaluations to come within %.0f%% of the exhaustive best (baseline counts as 1); %d seeds, strategy %s\n",
                    100 * kWithin, seeds, strategy.c_str());
        std::printf("mean / median / worst over seeds; a miss = never within %.0f%% inside a budget of |space| evaluations\n\n", 100 * kWithin);
        std::printf("| %-15s | %6s | %9s | %10s | %-26s | %-26s | %10s |\n", "task", "points", "best us", "start/best", "tuner",
                    "random", "declared");
        std::printf("|-----------------|--------|-----------|------------|----------------------------|----------------------------|------------|\n");
        double tuner_total = 0, random_total = 0;
        int rows = 0;
        for (const auto& s : spaces) {
            auto best = best_median(s);
            if (!best) { std::printf("| %-15s | no correct point |\n", s.task.c_str()); continue; }
            std::vector<int> t_evals, r_evals;
            int t_miss = 0, r_miss = 0;
            for (int seed = 0; seed < seeds; ++seed) {
                auto order = tuner_order(s, static_cast<std::uint64_t>(seed) + 1, strategy);
                if (!order.ok()) { std::cerr << "error: " << order.error().message << "\n"; return 3; }
                auto t = evals_to_target(s, *order, *best);
                if (t) t_evals.push_back(*t); else ++t_miss;
                auto r = evals_to_target(s, random_order(s, static_cast<std::uint64_t>(seed) + 1), *best);
                if (r) r_evals.push_back(*r); else ++r_miss;
            }
            auto d = evals_to_target(s, declared_order(s), *best);
            std::string start_key = search::point_text(s.start);
            std::string ratio = s.points.contains(start_key) && s.points[start_key].contains("median")
                                    ? fmt::format("{:.2f}x", s.points[start_key]["median"].get<double>() / *best) : "-";
            auto ts = stats(t_evals, t_miss), rs = stats(r_evals, r_miss);
            std::printf("| %-15s | %6zu | %9.2f | %10s | %-26s | %-26s | %10s |\n", s.task.c_str(), s.points.size(), *best * 1e6,
                        ratio.c_str(), show(ts).c_str(), show(rs).c_str(), d ? std::to_string(*d).c_str() : "never");
            tuner_total += ts.mean;
            random_total += rs.mean;
            ++rows;
        }
        if (rows) std::printf("\nmean over spaces: tuner %.1f, random %.1f evaluations\n", tuner_total / rows, random_total / rows);
        std::printf("\n");
    }
    return 0;
}
