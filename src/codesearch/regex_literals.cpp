#include "codesearch/regex_literals.h"

#include <cctype>

namespace kp::codesearch {

namespace {

constexpr std::size_t kMinLiteral = 3;

bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// Drops the last character of a run (a whole UTF-8 sequence), the one a quantifier made optional.
void drop_last_character(std::string& run) {
    while (!run.empty() && (static_cast<unsigned char>(run.back()) & 0xC0) == 0x80) run.pop_back();
    if (!run.empty()) run.pop_back();
}

// Index just past a bracket expression starting at `open` ('['), or npos when it does not close.
std::size_t skip_class(std::string_view p, std::size_t open) {
    std::size_t i = open + 1;
    if (i < p.size() && p[i] == '^') ++i;
    if (i < p.size() && p[i] == ']') ++i;  // a leading ']' is a member
    for (; i < p.size(); ++i) {
        if (p[i] == '\\') ++i;
        else if (p[i] == '[' && i + 1 < p.size() && p[i + 1] == ':') {  // [:alpha:]
            auto end = p.find(":]", i + 2);
            if (end == std::string_view::npos) return std::string_view::npos;
            i = end + 1;
        } else if (p[i] == ']') return i + 1;
    }
    return std::string_view::npos;
}

}  // namespace

std::vector<std::string> required_literals(std::string_view p) {
    std::vector<std::string> literals;
    std::string run;
    auto flush = [&] {
        if (run.size() >= kMinLiteral) literals.push_back(run);
        run.clear();
    };
    int depth = 0;  // inside a group: nothing is collected (it may be optional or an alternation)
    for (std::size_t i = 0; i < p.size(); ++i) {
        const char c = p[i];
        if (depth > 0) {
            if (c == '\\') ++i;
            else if (c == '[') {
                i = skip_class(p, i);
                if (i == std::string_view::npos) return {};
                --i;
            } else if (c == '(') ++depth;
            else if (c == ')') --depth;
            continue;
        }
        switch (c) {
            case '|': return {};  // a top-level alternation: no substring is required
            case '(': flush(); depth = 1; continue;
            case '[': {
                flush();
                i = skip_class(p, i);
                if (i == std::string_view::npos) return {};
                --i;
                continue;
            }
            case '.': case '^': case '$': flush(); continue;
            case '*': case '?': drop_last_character(run); flush(); continue;
            case '{': {
                drop_last_character(run);
                flush();
                auto end = p.find('}', i);
                if (end == std::string_view::npos) return {};
                i = end;
                continue;
            }
            case '+': flush(); continue;  // the character before it occurs at least once
            case '\\': {
                if (i + 1 >= p.size()) return {};
                const char escaped = p[++i];
                if (escaped == 'Q') return {};  // quoted runs: rare enough to scan everything
                if (is_alnum(escaped)) {
                    flush();  // a class (\d \w \s), an anchor (\b), a code (\x41 \101 \n \pL): not literal here
                    const bool coded = escaped == 'x' || escaped == 'p' || escaped == 'P';
                    if (coded && i + 1 < p.size() && p[i + 1] == '{') {
                        auto end = p.find('}', i);
                        if (end == std::string_view::npos) return {};
                        i = end;
                    } else {
                        // What follows the letter belongs to the escape: two hex digits, one
                        // property letter, up to two more octal digits.
                        std::size_t skip = escaped == 'x' ? 2 : coded ? 1 : std::isdigit(static_cast<unsigned char>(escaped)) ? 2 : 0;
                        while (skip-- > 0 && i + 1 < p.size() && is_alnum(p[i + 1])) ++i;
                    }
                    continue;
                }
                run += escaped;  // an escaped metacharacter is itself
                continue;
            }
            default: run += c;
        }
    }
    if (depth > 0) return {};
    flush();
    return literals;
}

}  // namespace kp::codesearch
