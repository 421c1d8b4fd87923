#include "build/tunables.h"

#include <cctype>
#include <regex>
#include <sstream>

namespace kp {

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
                    return make_error("line " + std::to_string(number) + ": kp:tune expects NAME=v1,v2,... but got '" + word + "'");
                TunableParameter p{a[1].str(), {}};
                std::istringstream values(a[2].str());
                for (std::string v; std::getline(values, v, ',');)
                    if (!v.empty()) p.values.push_back(v);
                if (p.values.empty()) return make_error("line " + std::to_string(number) + ": " + p.name + " has no values");
                for (const auto& existing : space.parameters)
                    if (existing.name == p.name)
                        return make_error("line " + std::to_string(number) + ": " + p.name + " is declared twice");
                space.parameters.push_back(std::move(p));
            }
        } else if (std::regex_match(line, m, constraint_line)) {
            space.constraints.push_back(m[1].str());
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
        if (!error_.empty()) return make_error(error_);
        if (pos_ != text_.size()) return make_error("unexpected '" + text_.substr(pos_) + "' in '" + text_ + "'");
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
            if (take("+")) v += parse_term();
            else if (take("-")) v -= parse_term();
            else return v;
        }
    }
    long long parse_term() {
        long long v = parse_unary();
        for (;;) {
            if (take("*")) v *= parse_unary();
            else if (take("/") || take("%")) {
                bool is_div = text_[pos_ - 1] == '/';
                long long rhs = parse_unary();
                if (rhs == 0) {
                    fail("division by zero in '" + text_ + "'");
                    return 0;
                }
                v = is_div ? v / rhs : v % rhs;
            } else return v;
        }
    }
    long long parse_unary() {
        if (take("-")) return -parse_unary();
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
            return std::stoll(text_.substr(start, pos_ - start));
        }
        while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
        std::string name = text_.substr(start, pos_ - start);
        if (name.empty()) {
            fail("expected a number or a name at '" + text_.substr(start) + "'");
            return 0;
        }
        auto it = values_.find(name);
        if (it == values_.end()) {
            fail("unknown parameter '" + name + "'");
            return 0;
        }
        try {
            return std::stoll(it->second);
        } catch (...) {
            fail("parameter " + name + "=" + it->second + " is not an integer");
            return 0;
        }
    }

    const std::string& text_;
    const ParameterValues& values_;
    size_t pos_ = 0;
    std::string error_;
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
