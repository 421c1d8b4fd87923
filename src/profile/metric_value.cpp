#include "profile/metric_value.h"

#include <cctype>
#include <cstdlib>
#include <sstream>

namespace kp::profile {
namespace {

std::string_view trim(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
    return text;
}

}  // namespace

std::optional<double> MetricValue::number() const {
    if (const double* v = std::get_if<double>(&value)) return *v;
    return std::nullopt;
}

std::string MetricValue::text() const {
    if (const double* v = std::get_if<double>(&value)) {
        std::ostringstream out;
        out.precision(15);
        out << *v;
        return out.str();
    }
    return std::get<std::string>(value);
}

std::optional<double> parse_ncu_number(std::string_view text) {
    text = trim(text);
    if (text.empty()) return std::nullopt;
    std::string digits;
    digits.reserve(text.size());
    bool seen_digit = false;
    for (char c : text) {
        if (c == ',') continue;  // thousands separator (ncu prints them even with --csv)
        if (std::isdigit(static_cast<unsigned char>(c))) seen_digit = true;
        else if (c != '.' && c != '-' && c != '+' && c != 'e' && c != 'E') return std::nullopt;
        digits.push_back(c);
    }
    if (!seen_digit) return std::nullopt;
    char* end = nullptr;
    double value = std::strtod(digits.c_str(), &end);
    if (end != digits.c_str() + digits.size()) return std::nullopt;
    return value;
}

MetricValue make_metric_value(std::string_view raw, std::string unit) {
    if (auto number = parse_ncu_number(raw)) return MetricValue{*number, std::move(unit)};
    return MetricValue{std::string(trim(raw)), std::move(unit)};
}

}  // namespace kp::profile
