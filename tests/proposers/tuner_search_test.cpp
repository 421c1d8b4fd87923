// The tuner inside the real SearchDriver, on a synthetic landscape over a kp:tune space: it finds
// the optimum well within the space size, deterministically for a seed.
#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

#include "search/proposers/parameter_space.h"
#include "search/proposers/tuner_proposer.h"
#include "search/search_driver.h"

namespace kp::search {
namespace {

const char* kSource = R"(// kp:tune BLOCK=64,128,256,512,1024
// kp:tune VEC=1,2,4,8
// kp:tune UNROLL=1,2,4,8
#define BLOCK 1024
#define VEC 1
#define UNROLL 8
)";

std::size_t index_of(const TunableSpace& space, const std::string& name, const std::string& value) {
    for (const auto& p : space.parameters)
        if (p.name == name) return static_cast<std::size_t>(std::find(p.values.begin(), p.values.end(), value) - p.values.begin());
    return 0;
}

// Fastest at BLOCK=256, VEC=8, UNROLL=2; UNROLL 4 and 8 spill (ptxas facts say so).
class Landscape : public Evaluator {
public:
    Result<EvaluationOutcome> evaluate(const EvaluationRequest& request) override {
        auto space = *parse_tunables(kSource);
        const auto& p = request.candidate.params;
        double b = static_cast<double>(index_of(space, "BLOCK", p.at("BLOCK"))) - 2;
        double v = static_cast<double>(index_of(space, "VEC", p.at("VEC"))) - 3;
        double u = static_cast<double>(index_of(space, "UNROLL", p.at("UNROLL"))) - 1;
        EvaluationOutcome o;
        o.median_seconds = 1e-5 * (1 + 0.2 * b * b) * (1 + 0.3 * v * v) * (1 + 0.25 * u * u);
        o.roofline_fraction = 1e-6 / *o.median_seconds;
        o.roofline_class = "memory_bound";
        long spills = u > 0 ? static_cast<long>(u) * 32 : 0;
        o.details["compiler"] = compiler_facts_to_json({spills ? 255 : 40, spills, 0});
        ++evaluations;
        if (p.at("BLOCK") == "256" && p.at("VEC") == "8" && p.at("UNROLL") == "2" && !found_at) found_at = evaluations;
        return o;
    }
    int evaluations = 0;
    int found_at = 0;
};

int search_once(std::uint64_t seed, const std::string& strategy) {
    auto db = std::filesystem::temp_directory_path() / ("tuner_search_" + std::to_string(getpid()) + "_" + std::to_string(seed) + ".db");
    std::filesystem::remove(db);
    auto store = store::RunStore::open(db, store::Durability::process_crash_safe);
    EXPECT_TRUE(store.ok());
    Landscape landscape;
    TunerProposer tuner;
    SearchDriver driver(*store, landscape, tuner);
    SearchConfig config;
    config.seed = seed;
    config.strategy = strategy;
    config.stop_limits = {{"evaluation_budget", 40}};
    auto space = *parse_tunables(kSource);
    auto outcome = driver.start({"landscape", "fp"}, {kSource, resolve_point(kSource, space, {})}, config);
    EXPECT_TRUE(outcome.ok());
    std::filesystem::remove(db);
    return landscape.found_at;
}

TEST(TunerSearch, GreedyClimbsToTheOptimum) {
    for (std::uint64_t seed : {1, 2, 3}) {
        int found = search_once(seed, "greedy");
        EXPECT_GT(found, 0) << "seed " << seed;
        EXPECT_LE(found, 20) << "seed " << seed;  // 80 points in the space
    }
}

TEST(TunerSearch, MctsFindsTheOptimumWithinBudget) {
    int found = search_once(1, "mcts");
    EXPECT_GT(found, 0);
}

TEST(TunerSearch, DeterministicForASeed) {
    EXPECT_EQ(search_once(5, "mcts"), search_once(5, "mcts"));
}

}  // namespace
}  // namespace kp::search
