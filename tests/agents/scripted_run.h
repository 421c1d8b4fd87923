// Test helpers for runs whose proposers are built from a recipe, the way `optimize` and `runs
// resume` build them: a hand-written LLM script whose coder and fixer replies are kernels
// ("version N", with kp:tune lines), a landscape that scores a kernel by its version and
// parameters, and sessions that start a run from a recipe or resume it from the stored one.
#pragma once

#include <fstream>

#include <fmt/format.h>

#include "../search/driver_fixture.h"
#include "search/proposer_registry.h"
#include "search/stored_run.h"

namespace kp::agents::testing {

using namespace kp::search;
using namespace kp::search::synthetic;

// A kernel the LLM proposer can take: it has kp_forward and declares two tunables.
inline std::string kernel_version(int version) {
    return fmt::format(
        "#include \"kernelpro/abi.h\"\n// kp:tune BLOCK=32,64,128,256,512\n// kp:tune VEC=1,2,4,8\n// version {}\n"
        "__global__ void k(const float* x, float* y) {{}}\n"
        "KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t s) {{ return 0; }}\n",
        version);
}

inline std::string fenced(const std::string& code) { return "Here it is.\n```cuda\n" + code + "```\n"; }

// `pairs` analyst plans and coder kernels (versions 1..pairs), and as many fixer kernels.
inline void write_script(const std::filesystem::path& path, int pairs) {
    std::ofstream out(path);
    for (int i = 1; i <= pairs; ++i) {
        nlohmann::json plan = {{"role", "analyst"},
                               {"reply", fmt::format("```json\n{{\"bottleneck\": \"b{0}\", \"plan\": \"try version {0}\"}}\n```\n", i)}};
        out << plan.dump() << "\n";
        out << nlohmann::json{{"role", "coder"}, {"reply", fenced(kernel_version(i))}}.dump() << "\n";
        out << nlohmann::json{{"role", "fixer"}, {"reply", fenced(kernel_version(100 + i))}}.dump() << "\n";
    }
}

// Every kernel is correct; a later version and a larger BLOCK are faster.
inline EvaluationOutcome versioned(const Candidate& candidate) {
    int version = 0;
    if (auto at = candidate.source.find("// version "); at != std::string::npos)
        version = std::stoi(candidate.source.substr(at + 11));
    double speedup = 1.0 + 0.15 * (version % 100);
    if (auto block = candidate.params.find("BLOCK"); block != candidate.params.end()) speedup *= 1.0 + std::stoi(block->second) / 2560.0;
    return correct_outcome(speedup);
}

inline const Candidate kVersionZero{kernel_version(0), {{"BLOCK", "64"}, {"VEC", "1"}}};

inline RunRecipe recipe_for(const std::vector<std::string>& proposers, const std::filesystem::path& script) {
    RunRecipe recipe;
    recipe.proposers = proposers;
    recipe.llm.spec = "script:" + script.string();
    return recipe;
}

inline ProposerContext context_for(const RunRecipe& recipe) {
    ProposerContext context;
    context.task = kTask;
    context.task_description = "synthetic: copies a tensor";
    context.llm = recipe.llm;
    return context;
}

// Starts a run from `recipe` (proposers made from it, the LLM settings they resolve stored).
inline Result<SearchOutcome> start_run(store::RunStore& store, Evaluator& evaluator, RunRecipe recipe,
                                       SearchConfig config, const std::function<void(SearchDriver&)>& prepare = {},
                                       SearchTree* final_tree = nullptr) {
    auto context = context_for(recipe);
    auto proposer = make_proposers(recipe.proposers, context);
    if (!proposer) return proposer.error();
    recipe.llm = context.llm;
    adjust_config_for(recipe.proposers, config);
    SearchDriver driver(store, evaluator, **proposer);
    if (prepare) prepare(driver);
    auto outcome = driver.start(kTask, kVersionZero, config, recipe);
    if (final_tree) *final_tree = driver.tree();
    return outcome;
}

// Resumes a run from what the store holds: its recipe, and the LLM replies it already used.
inline Result<SearchOutcome> resume_run(store::RunStore& store, Evaluator& evaluator, std::int64_t run_id,
                                        const std::function<void(SearchDriver&)>& prepare = {},
                                        SearchTree* final_tree = nullptr) {
    auto run = store.load_run(run_id);
    if (!run) return run.error();
    auto recipe = recipe_of(*run);
    if (!recipe) return recipe.error();
    if (!*recipe) return make_error("the run has no recipe");
    auto context = context_for(**recipe);
    auto served = served_llm_purposes(store, run_id);
    if (!served) return served.error();
    context.served_llm_purposes = *served;
    auto proposer = make_proposers((*recipe)->proposers, context);
    if (!proposer) return proposer.error();
    SearchDriver driver(store, evaluator, **proposer);
    if (prepare) prepare(driver);
    auto outcome = driver.resume(run_id);
    if (final_tree) *final_tree = driver.tree();
    return outcome;
}

}  // namespace kp::agents::testing
