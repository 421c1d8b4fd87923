#include "build/tunables.h"

#include <cctype>
#include <charconv>
#include <limits>
#include <regex>
#include <sstream>

#include "common/utf8.h"

namespace kp {

namespace {
// What a -D value may hold: printable ASCII without ',' (the list separator) or '=' .
bool is_macro_value(const std::string& value) {
    for (unsigned char c : value)
        if (c < 0x21 || c > 0x7E || c == ',' || c == '=') return false;
    return true;
}
}  // namespace

size_t TunableSpace::size() const {
    size_t n = parameters.empty() ? 0 : 1;
    for (const auto& p : parameters) n *= p.values.size();
    return n;
}

Result<TunableSpace> parse_tunables(const std::string& source) {
    static const std::regex tune_line(R"(^\s*//\s*kp:tune\s+(.*)$)");
    static const std::regex constraint_line(R"(^\s*//\s*kp:constraint\s+(.*)$)");
    static const std::regex assignment(R"(^([A-Za-z_][A-Za-z0-9_]*)=([^=\s]+)$)");
    TunableSpace space;
    std::istringstream lines(source);
    int number = 0;
    for (std::string line; std::getline(lines, line);) {
        ++number;
        std::smatch m;
        if (std::regex_match(line, m, tune_line)) {
            std::istringstream words(m[1].str());
            for (std::string word; words >> word;) {
                std::smatch a;
                if (!std::regex_match(word, a, assignment))
                    return make_error("line " + std::to_string(number) + ": kp:tune expects NAME=v1,v2,... but got '" +
                                      valid_utf8(word) + "'");
                TunableParameter p{a[1].str(), {}};
                std::istringstream values(a[2].str());
                for (std::string v; std::getline(values, v, ',');) {
                    if (v.empty()) continue;
                    if (!is_macro_value(v))
                        return make_error("line " + std::to_string(number) + ": " + p.name + " value '" + valid_utf8(v) +
                                          "' must be printable ASCII (it becomes -D" + p.name + "=VALUE)");
                    p.values.push_back(v);
                }
                if (p.values.empty()) return make_error("line " + std::to_string(number) + ": " + p.name + " has no values");
                for (const auto& existing : space.parameters)
                    if (existing.name == p.name)
                        return make_error("line " + std::to_string(number) + ": " + p.name + " is declared twice");
                space.parameters.push_back(std::move(p));
            }
        } else if (std::regex_match(line, m, constraint_line)) {
            space.constraints.push_back(valid_utf8(m[1].str()));
        }
    }
    return space;
}

namespace {

// Recursive descent over: or -> and ('||' and)*; and -> cmp ('&&' cmp)*; cmp -> sum (op sum)?;
// sum -> term (('+'|'-') term)*; term -> unary (('*'|'/'|'%') unary)*; unary -> '-' unary | atom.
class ExpressionParser {
public:
    ExpressionParser(const std::string& text, const ParameterValues& values) : text_(text), values_(values) {}

    Result<long long> parse() {
        long long v = parse_or();
        skip_space();
        if (!error_.empty()) return make_error(valid_utf8(error_));  // messages quote the source text
        if (pos_ != text_.size()) return make_error("unexpected '" + valid_utf8(text_.substr(pos_)) + "' in '" + valid_utf8(text_) + "'");
        return v;
    }

private:
    void skip_space() {
        while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    }
    bool take(const char* token) {
        skip_space();
        size_t n = std::char_traits<char>::length(token);
        if (text_.compare(pos_, n, token) == 0) {
            pos_ += n;
            return true;
        }
        return false;
    }
    void fail(const std::string& message) {
        if (error_.empty()) error_ = message;
    }
    long long parse_or() {
        long long v = parse_and();
        while (take("||")) v = (parse_and() != 0) || v != 0;
        return v;
    }
    long long parse_and() {
        long long v = parse_comparison();
        while (take("&&")) {
            long long rhs = parse_comparison();
            v = (v != 0) && (rhs != 0);
        }
        return v;
    }
    long long parse_comparison() {
        long long v = parse_sum();
        if (take("<=")) return v <= parse_sum();
        if (take(">=")) return v >= parse_sum();
        if (take("==")) return v == parse_sum();
        if (take("!=")) return v != parse_sum();
        if (take("<")) return v < parse_sum();
        if (take(">")) return v > parse_sum();
        return v;
    }
    long long parse_sum() {
        long long v = parse_term();
        for (;;) {
            if (take("+")) v = apply('+', v, parse_term());
            else if (take("-")) v = apply('-', v, parse_term());
            else return v;
        }
    }
    long long parse_term() {
        long long v = parse_unary();
        for (;;) {
            if (take("*")) v = apply('*', v, parse_unary());
            else if (take("/") || take("%")) {
                bool is_div = text_[pos_ - 1] == '/';
                long long rhs = parse_unary();
                if (rhs == 0) {
                    fail("division by zero in '" + text_ + "'");
                    return 0;
                }
                if (rhs == -1 && v == std::numeric_limits<long long>::min()) return checked(true, 0);
                v = is_div ? v / rhs : v % rhs;
            } else return v;
        }
    }
    long long parse_unary() {
        // Nesting deeper than any real constraint would only exhaust the stack.
        if (++depth_ > kMaxDepth) {
            fail("expression nested too deeply in '" + valid_utf8(text_) + "'");
            return 0;
        }
        struct Leave {
            int& depth;
            ~Leave() { --depth; }
        } leave{depth_};
        if (take("-")) {
            long long v = parse_unary();
            return v == std::numeric_limits<long long>::min() ? checked(true, 0) : -v;
        }
        if (take("!")) return !parse_unary();
        return parse_atom();
    }
    long long parse_atom() {
        skip_space();
        if (take("(")) {
            long long v = parse_or();
            if (!take(")")) fail("missing ')' in '" + text_ + "'");
            return v;
        }
        size_t start = pos_;
        if (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
            while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
            return to_integer(text_.substr(start, pos_ - start), "number");
        }
        while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
        std::string name = text_.substr(start, pos_ - start);
        if (name.empty()) {
            fail("expected a number or a name at '" + valid_utf8(text_.substr(start)) + "'");
            return 0;
        }
        auto it = values_.find(name);
        if (it == values_.end()) {
            fail("unknown parameter '" + name + "'");
            return 0;
        }
        return to_integer(it->second, "parameter " + name);
    }
    // Digits (with an optional sign) that fit a long long; anything else fails the expression.
    long long to_integer(const std::string& text, const std::string& what) {
        long long value = 0;
        auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error != std::errc() || end != text.data() + text.size()) {
            fail(what + "=" + valid_utf8(text) + " is not an integer that fits 64 bits");
            return 0;
        }
        return value;
    }
    // a + b, a - b or a * b, or a failure when the result does not fit 64 bits.
    long long apply(char op, long long a, long long b) {
        long long result = 0;
        bool overflowed = op == '+'   ? __builtin_add_overflow(a, b, &result)
                          : op == '-' ? __builtin_sub_overflow(a, b, &result)
                                      : __builtin_mul_overflow(a, b, &result);
        return checked(overflowed, result);
    }
    // The result of an operation, or a failure when it overflowed 64 bits.
    long long checked(bool overflowed, long long value) {
        if (overflowed) fail("integer overflow in '" + valid_utf8(text_) + "'");
        return overflowed ? 0 : value;
    }

    const std::string& text_;
    const ParameterValues& values_;
    size_t pos_ = 0;
    std::string error_;
    static constexpr int kMaxDepth = 200;
    int depth_ = 0;
};

}  // namespace

Result<long long> evaluate_expression(const std::string& expression, const ParameterValues& values) {
    return ExpressionParser(expression, values).parse();
}

bool satisfies_constraints(const TunableSpace& space, const ParameterValues& values) {
    for (const auto& c : space.constraints) {
        auto r = evaluate_expression(c, values);
        if (!r.ok() || *r == 0) return false;
    }
    return true;
}

std::vector<std::string> define_flags(const ParameterValues& values) {
    std::vector<std::string> flags;
    for (const auto& [name, value] : values) flags.push_back("-D" + name + "=" + value);
    return flags;
}

}  // namespace kp
