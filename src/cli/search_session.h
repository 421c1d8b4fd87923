// A search session of `optimize` or `runs resume`, built from the run's recipe the same way for
// both: the task found by the recipe's path, the GPU evaluator with the recipe's evaluation and
// profile settings writing under its out_dir, and the recipe's proposers. Then the driver runs
// with the live progress line and Ctrl-C handling, and the run's outputs are written.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "build/candidate_builder.h"
#include "common/result.h"
#include "eval/evaluator.h"
#include "optimize/gpu_evaluator.h"
#include "search/proposer_registry.h"
#include "search/run_recipe.h"
#include "search/search_driver.h"
#include "task/task_spec.h"

namespace kp::cli {

struct SearchSession {
    TaskSpec task;
    search::RunRecipe recipe;
    std::unique_ptr<CandidateBuilder> builder;
    std::unique_ptr<kp::Evaluator> gpu;
    std::unique_ptr<optimize::GpuEvaluator> evaluator;
    std::unique_ptr<search::Proposer> proposer;
    // The GPUs its evaluations run on (--gpus; bench's pool is shared by its problems); null: one
    // worker at a time on the first GPU the process sees. Set before assemble_session.
    GpuPool* gpu_pool = nullptr;
};

// What LLM agents are told about the task: its description, tensors and minimal cost.
std::string describe_task_for_agents(const TaskSpec& task);

// The proposers' context for this session's task and recipe (environment captured here).
search::ProposerContext proposer_context(const SearchSession& session);

// Builds the evaluator and the proposers of `session` (task and recipe set). The proposers'
// needs from the machine are checked first: a missing API key prints one line and gives 3; a
// proposer that cannot be made from the recipe prints one line and gives 2. 0 on success; the
// LLM settings a proposer resolved are then in session.recipe.
int assemble_session(SearchSession& session, search::ProposerContext& context);

// One line for the start: "proposers tuner,llm (anthropic:claude-sonnet-4), profiled, out DIR".
std::string describe_session(const SearchSession& session);

// Runs `go` (driver.start or driver.resume) with the live progress line on stderr and Ctrl-C
// handling, then writes the run's outputs and OUT/report.html (from `store`) under the recipe's
// out_dir; returns the command's exit code.
int run_search_session(search::SearchDriver& driver, store::RunStore& store, SearchSession& session, bool quiet,
                       const std::function<Result<search::SearchOutcome>()>& go);

}  // namespace kp::cli
