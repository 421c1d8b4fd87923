// A KernelBench checkout on disk: KB_ROOT/KernelBench/level{1,2,3,4}/{id}_{Name}.py (KB_ROOT may
// also be the KernelBench/ folder itself). kernelpro never ships these files: users point at their
// own checkout (docs/kernelbench.md).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "common/result.h"

namespace kp::kernelbench {

struct KernelBenchProblem {
    int level = 0;
    int id = 0;
    std::filesystem::path file;
};

// Every problem of a level, by id. An error names the folder that was looked for.
Result<std::vector<KernelBenchProblem>> list_level(const std::filesystem::path& root, int level);

// "1,19,23" or "1-10,19": the ids, in the order given, duplicates dropped.
Result<std::vector<int>> parse_problem_ids(const std::string& text);

// The problems with these ids; an id the level lacks is an error naming it.
Result<std::vector<KernelBenchProblem>> select_problems(const std::vector<KernelBenchProblem>& level, const std::vector<int>& ids);

}  // namespace kp::kernelbench
