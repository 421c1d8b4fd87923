// bench_autoprofile [--tasks DIR] [--recordings DIR] [--tuning MANIFEST] [--tuner-evals N] [--costs GPU|FILE]:
// for each budget (about one replay pass, a few, loose), learns a tree with the enumerative
// proposer on the training kernels and compares it with the fixed configurations (none, roofline
// only, today's full plan) on the training and the held-out kernels (hit rate) and on the tuning
// kernels (the tuner's outcome in N evaluations given each tree's feedback): mean seconds and
// passes per kernel too. No GPU: the corpus and the tuning tables are replayed from recordings
// (CPU needs nvcc and the SASS tools).
#include <filesystem>
#include <iostream>

#include <CLI/CLI.hpp>

#include "autoprofiler/comparison.h"
#include "autoprofiler/learning_run.h"
#include "autoprofiler/named_trees.h"
#include "autoprofiler/tuning_record.h"

namespace ap = kp::autoprofiler;

int main(int argc, char** argv) {
    CLI::App app("Compare a learned profiling tree with fixed configurations at equal budgets");
    std::string tasks = KP_SOURCE_DIR "/tests/profile_corpus", recordings = KP_SOURCE_DIR "/tests/fixtures/h200-corpus",
                costs_name = KP_SOURCE_DIR "/autoprofiler/costs/h200.toml",
                tuning_manifest = KP_SOURCE_DIR "/tests/fixtures/h200-tuning/manifest.toml";
    int tuner_evals = 4;
    app.add_option("--tasks", tasks, "Labelled corpus (manifest.toml)")->capture_default_str();
    app.add_option("--recordings", recordings, "Its recorded counters")->capture_default_str();
    app.add_option("--costs", costs_name, "Cost table")->capture_default_str();
    app.add_option("--tuning", tuning_manifest, "Tuning kernels (recorded counters and timed kp:tune spaces); empty: none")->capture_default_str();
    app.add_option("--tuner-evals", tuner_evals, "The simulated tuner's evaluations after the profiled start")->capture_default_str();
    CLI11_PARSE(app, argc, argv);
    auto costs = ap::resolve_cost_table(costs_name);
    if (!costs) {
        std::cerr << "error: " << costs.error().message << "\n";
        return 2;
    }
    auto records = ap::load_corpus_records({tasks, recordings, {}});
    if (!records) {
        std::cerr << "error: " << records.error().message << "\n";
        return 3;
    }
    std::vector<ap::KernelRecord> tuning;
    if (!tuning_manifest.empty()) {
        auto loaded = ap::load_tuning_records(tuning_manifest);
        if (!loaded) {
            std::cerr << "error: " << loaded.error().message << "\n";
            return 3;
        }
        tuning = std::move(*loaded);
    }
    std::vector<ap::KernelRecord> train, held_out;
    ap::split_records(*records, 4, train, held_out);
    std::cout << "costs: " << costs->gpu << " (" << costs->source << "); " << train.size() << " training, " << held_out.size()
              << " held-out kernels; " << tuning.size() << " tuning kernels, tuner outcome in " << tuner_evals << " evaluations\n\n";
    auto objective = ap::diagnosis_hit_rate();
    std::vector<ap::ComparisonRow> all;
    for (const auto& budget : ap::standard_budgets()) {
        const auto db = std::filesystem::temp_directory_path() / ("bench_autoprofile_" + std::to_string(::getpid()) + ".db");
        auto log = ap::LearningLog::open(db);
        if (!log) {
            std::cerr << "error: " << log.error().message << "\n";
            return 3;
        }
        auto proposer = ap::enumerative_proposer();
        ap::LearningSettings settings;
        settings.budget = budget.budget;
        auto learned = ap::learn_tree(train, held_out, *costs, *objective, {proposer.get()}, settings, *log, budget.name);
        for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db.string() + suffix);
        if (!learned) {
            std::cerr << "error: " << learned.error().message << "\n";
            return 3;
        }
        auto named = ap::named_trees();
        if (!named) {
            std::cerr << "error: " << named.error().message << "\n";
            return 3;
        }
        std::vector<std::pair<std::string, ap::ProfilingTree>> trees = std::move(*named);
        trees.emplace_back("learned", learned->tree);
        auto rows = ap::compare_trees(trees, train, held_out, *costs, {budget}, tuning, tuner_evals);
        all.insert(all.end(), rows.begin(), rows.end());
        std::cerr << budget.name << ": learned in " << learned->rounds << " rounds, " << learned->proposals << " proposals, "
                  << learned->accepted << " accepted\n";
    }
    std::cout << ap::render_comparison(all);
    return 0;
}
