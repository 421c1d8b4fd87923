// The substrings every match of a regular expression must contain, so the trigram index can
// narrow a regex search to the files that hold all of them before the regex itself runs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kp::codesearch {

// Conservative: a literal is returned only when every match contains it (a top-level alternation,
// for one, gives none), and only literals of three bytes or more (the index's trigram size). An
// empty answer means "scan every file", never "nothing matches".
std::vector<std::string> required_literals(std::string_view pattern);

}  // namespace kp::codesearch
