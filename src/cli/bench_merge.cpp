#include "cli/bench_merge.h"

#include <algorithm>
#include <iostream>
#include <map>

#include <fmt/format.h>

#include "cli/bench_output.h"

namespace kp::cli {

namespace fs = std::filesystem;

std::vector<fs::path> shard_folders(const fs::path& dir) {
    if (fs::is_regular_file(dir / "bench.json")) return {dir};
    std::vector<fs::path> found;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (e.is_directory() && e.path().filename().string().rfind("shard-", 0) == 0) found.push_back(e.path());
    std::sort(found.begin(), found.end());
    return found;
}

Result<MergedBench> merge_shards(const std::vector<fs::path>& shard_dirs) {
    struct Shard {
        BenchPlan plan;
        std::vector<std::optional<kernelbench::BenchProblemResult>> rows;
    };
    std::map<int, Shard> shards;
    std::optional<BenchPlan> first;
    for (const auto& dir : shard_dirs) {
        if (!fs::is_regular_file(dir / "bench.json")) return make_error(dir.string() + " holds no bench.json (not a bench shard folder)");
        BenchManifest manifest(dir / "bench.json");
        auto plan = manifest.plan();
        if (!plan) return make_error(dir.string() + "/bench.json has no plan (written by a kernelpro older than bench --shard)");
        if (!first) first = plan;
        if (plan->tasks_dir != first->tasks_dir || plan->shard_count != first->shard_count)
            return make_error(fmt::format("{} is shard {}/{} of {}, not of the same bench as the first ({} shards of {})", dir.string(),
                                          plan->shard_index, plan->shard_count, plan->tasks_dir, first->shard_count, first->tasks_dir));
        if (shards.count(plan->shard_index))
            return make_error(fmt::format("shard {} is given twice ({})", plan->shard_index, dir.string()));
        Shard shard{*plan, {}};
        for (const auto& problem : plan->problems) shard.rows.push_back(manifest.finished(problem));
        shards.emplace(plan->shard_index, std::move(shard));
    }
    if (!first) return make_error("no shard folders given");
    MergedBench merged;
    merged.suite = first->suite;
    for (int i = 0; i < first->shard_count; ++i)
        if (!shards.count(i)) merged.missing.push_back(fmt::format("shard {}: not started (no shard-{}/bench.json)", i, i));
    // shard_of() dealt the sorted folders round-robin: position j of the whole list is problem
    // j / K of shard j mod K, so interleaving the shards gives back the unsharded order.
    size_t longest = 0;
    for (const auto& [index, shard] : shards) longest = std::max(longest, shard.plan.problems.size());
    for (size_t round = 0; round < longest; ++round)
        for (const auto& [index, shard] : shards) {
            if (round >= shard.plan.problems.size()) continue;
            ++merged.problems;
            if (shard.rows[round]) merged.rows.push_back(*shard.rows[round]);
            else merged.missing.push_back(fmt::format("shard {}: {} (unfinished)", index, shard.plan.problems[round]));
        }
    merged.title = bench_table_title(first->tasks_dir, merged.rows.size());
    return merged;
}

void write_merged_table(const MergedBench& merged, const fs::path& out) {
    write_bench_table(out, merged.rows, merged.title, merged.suite);
    std::cout << kernelbench::bench_table_markdown(merged.rows, "kernelpro bench merge") << "\n" << (out / "results.md").string() << "\n";
    for (const auto& line : merged.missing) std::cout << "missing: " << line << "\n";
}

Handler register_bench_merge(CLI::App& bench) {
    auto* cmd = bench.add_subcommand("merge", "Fold the shards of one bench (bench --slurm, bench --shard) into one results table");
    struct Args {
        std::vector<std::string> inputs;
        std::string out;
    };
    auto a = std::make_shared<Args>();
    cmd->add_option("dirs", a->inputs, "The --out folder of bench --slurm (its shard-* folders), or shard folders")
        ->required()
        ->check(CLI::ExistingDirectory);
    cmd->add_option("--out", a->out, "Where results.md/.json go (default: the one folder given, when it holds the shards)");
    return [a]() {
        std::vector<fs::path> shards;
        for (const auto& input : a->inputs) {
            auto found = shard_folders(input);
            if (found.empty()) {
                std::cerr << "error: " << input << " holds no bench.json and no shard-* folders (not a bench output folder)\n";
                return kExitUsage;
            }
            shards.insert(shards.end(), found.begin(), found.end());
        }
        fs::path out = a->out;
        if (out.empty()) {
            if (a->inputs.size() != 1 || fs::is_regular_file(fs::path(a->inputs[0]) / "bench.json")) {
                std::cerr << "error: --out is required when merging shard folders (the default is the one folder that holds them)\n";
                return kExitUsage;
            }
            out = a->inputs[0];
        }
        auto merged = merge_shards(shards);
        if (!merged) {
            std::cerr << "error: " << merged.error().message << "\n";
            return kExitUsage;
        }
        std::error_code ec;
        fs::create_directories(out, ec);
        if (ec) {
            std::cerr << "error: --out " << out.string() << ": " << ec.message() << "\n";
            return kExitEnvironment;
        }
        write_merged_table(*merged, out);
        return kExitOk;
    };
}

}  // namespace kp::cli
