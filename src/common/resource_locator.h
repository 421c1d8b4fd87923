// Finds the files kernelpro ships with (the candidate ABI header, prompt templates, the worker and
// helper programs, the CUPTI libraries, NVIDIA tools fetched from PyPI) wherever it was installed
// or built. One precedence for every resource:
//   1. its environment variable, when set (it names the resource, or a folder that holds it);
//   2. relative to the running executable, as in an install prefix: <exe>/../bin, <exe>/../lib,
//      <exe>/../include, <exe>/../share/kernelpro, <exe>/../libexec/kernelpro;
//   3. the build tree that holds the running executable (the nearest parent folder with a
//      CMakeCache.txt), which CMake lays out like an install prefix. Programs in bin/ find
//      everything at step 2; this step serves test and benchmark programs deeper in the tree.
// Nothing depends on the path the sources were built at. A variable that names a path that does
// not exist is an error rather than a reason to look elsewhere: a typo must not silently pick up
// another copy.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace kp {

struct ResourceQuery {
    std::string description;                       // for messages: "the prompt templates"
    std::string variable;                          // e.g. "KERNELPRO_PROMPTS_DIR"; empty: none
    std::filesystem::path below_variable;          // joined to the variable's value; empty: the value is the resource
    std::vector<std::filesystem::path> in_prefix;  // its places in an install prefix, tried in order
};

// The places looked at, in precedence order (the variable's only, when it is set).
std::vector<std::filesystem::path> resource_candidates(const ResourceQuery& query);

// The first candidate that exists; the error names every place looked at.
Result<std::filesystem::path> locate_resource(const ResourceQuery& query);

// kernelpro's own resources.
Result<std::filesystem::path> locate_abi_header();         // $KERNELPRO_INCLUDE_DIR/kernelpro/abi.h, include/kernelpro/abi.h
Result<std::filesystem::path> locate_prompts_directory();  // $KERNELPRO_PROMPTS_DIR, share/kernelpro/prompts
Result<std::filesystem::path> locate_helper(const std::string& file_name);  // $KERNELPRO_HELPER_DIR/<name>, bin/<name>, lib/<name>
Result<std::filesystem::path> locate_worker();             // $KERNELPRO_WORKER, bin/kernelpro-worker
Result<std::filesystem::path> locate_nvidia_tools();       // libexec/kernelpro/nvidia (scripts/install-nvidia-tools' wheels)

// The running program (/proc/self/exe), and the build tree it sits in, if any.
std::optional<std::filesystem::path> running_executable();
std::optional<std::filesystem::path> enclosing_build_tree(const std::filesystem::path& executable);

}  // namespace kp
