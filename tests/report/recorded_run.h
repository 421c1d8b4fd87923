// A recorded optimization run for report tests: the real SearchDriver, the real tuner and the real
// LLM proposer (answering from examples/llm-scripts/gelu_f16.jsonl, a hand-written script) on the
// gelu_f16 example task, with a stand-in for the GPU evaluator (there is no GPU in CI).
#pragma once

#include <cstdint>
#include <filesystem>

namespace kp::report::testing {

struct RecordedRun {
    std::filesystem::path store_path;
    std::int64_t run_id = 0;
};

// Writes a fresh run store at `store_path` holding one finished run of `evaluations` evaluations.
RecordedRun record_gelu_run(const std::filesystem::path& store_path, int evaluations);

}  // namespace kp::report::testing
