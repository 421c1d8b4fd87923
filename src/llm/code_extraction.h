// Getting usable code out of a model's reply. Replies are prose plus fenced blocks, often more than
// one (a snippet, then the full kernel), sometimes cut off by the token limit. Every failure is an
// error value the agent turns into a retry; nothing here throws.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace kp::llm {

struct CodeBlock {
    std::string language;  // the fence's label, lower-cased ("cuda", "cpp", "c++", "" ...)
    std::string code;
    bool closed = true;    // false: the reply ended inside the block
    int first_line = 0;    // line of the opening fence in the reply (1-based)
};

// ``` and ~~~ fences, indented or not; a closing fence needs the same character, at least as many.
std::vector<CodeBlock> find_code_blocks(std::string_view reply);

struct ExtractedKernel {
    std::string source;
    std::string language;
    bool fenced = true;  // false: the reply was bare code without fences
};

// The block that contains `kp_forward`; the biggest one if several do (ties: the last). An unclosed
// final fence is accepted when its braces balance and the model did not hit its token limit; a
// reply that is bare code (no fences, with kp_forward and #include/__global__) is accepted whole.
Result<ExtractedKernel> extract_kernel_source(std::string_view reply, bool reply_hit_token_limit = false);

// { } balance outside comments, string and character literals; 0 for a complete translation unit.
int brace_balance(std::string_view code);

// `// kp:tune NAME=v1,v2,...` lines (docs/task-format.md): NAME becomes a -D macro, so it must be
// an identifier; values are non-empty tokens of [A-Za-z0-9_.+-]. Malformed or repeated lines are errors.
struct TunableDeclaration {
    std::string name;
    std::vector<std::string> values;
    int line = 0;
};
Result<std::vector<TunableDeclaration>> parse_tunables(std::string_view source);

// The reply without its code blocks, trimmed: the model's explanation.
std::string prose_outside_code_blocks(std::string_view reply);

// The last ```json block (or, failing that, the last {...} in the text) that parses as an object.
Result<nlohmann::json> extract_json_object(std::string_view reply);

}  // namespace kp::llm
