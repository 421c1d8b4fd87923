// Internal to code_index.cpp: the tree walk, its signature, and writing an index file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "codesearch/code_index.h"
#include "common/result.h"

namespace kp::codesearch::detail {

// Bump when the index's schema or what it holds changes: older files are rebuilt.
constexpr int kIndexFormat = 1;

struct TreeFile {
    std::string path;  // relative, '/'-separated
    std::uint64_t size = 0;
    std::int64_t mtime_ns = 0;
};

// Regular files below `root` (no symbolic links, no hidden folders), sorted by path.
Result<std::vector<TreeFile>> walk_tree(const std::filesystem::path& root);

// Changes when any file is added, removed, resized or touched, or the format changes.
std::string tree_signature(const std::filesystem::path& root, const std::vector<TreeFile>& files);

// Writes a fresh index of `files` to `index_file` (which must not exist) and fills the counts.
Status write_index(const std::filesystem::path& index_file, const std::filesystem::path& root,
                   const std::vector<TreeFile>& files, const std::string& signature, IndexStats& stats);

}  // namespace kp::codesearch::detail
