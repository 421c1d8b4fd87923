// One ncu metric value: a number (after CSV unquoting and thousands-separator removal) or a
// string ("-", "NVIDIA H200", "PolicySpread"), with its unit as ncu printed it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace kp::profile {

struct MetricValue {
    std::variant<double, std::string> value;
    std::string unit;

    bool is_number() const { return std::holds_alternative<double>(value); }
    std::optional<double> number() const;
    // The value as text: numbers printed without thousands separators.
    std::string text() const;
};

// Parses an ncu number: "1,975,147,684.92" -> 1975147684.92, "3.356e-05", "-12". Returns nullopt for
// anything that is not entirely a number ("-", "n/a", "NVIDIA H200", "").
std::optional<double> parse_ncu_number(std::string_view text);

// A number when `raw` is one, else the trimmed string.
MetricValue make_metric_value(std::string_view raw, std::string unit);

}  // namespace kp::profile
