// Paths the model (or a user) names inside a code tree, checked before anything is looked up: a
// path is relative to the tree's root and stays inside it, or it is refused.
#pragma once

#include <string>
#include <string_view>

#include "common/result.h"

namespace kp::codesearch {

// "include/cute/./tensor.hpp" -> "include/cute/tensor.hpp"; "", "." and "/"-free roots -> "" (the
// tree's root). Refused with a reason: absolute paths, paths that climb out with "..", NUL bytes.
Result<std::string> normalize_tree_path(std::string_view path);

// True when `path` is `folder` itself or lies below it ("" holds everything).
bool is_within(std::string_view path, std::string_view folder);

}  // namespace kp::codesearch
