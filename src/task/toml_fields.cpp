#include "task/toml_fields.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "common/utf8.h"

namespace kp::task_fields {

void Problems::add(const toml::source_region& region, const std::string& field, const std::string& what) {
    add_at(static_cast<int64_t>(region.begin.line), field, what);
}

void Problems::add_at(int64_t line_number, const std::string& field, const std::string& what) {
    std::ostringstream line;
    line << file_ << ":" << std::max<int64_t>(line_number, 1) << ": " << one_line(field) << ": " << one_line(what);
    lines_.push_back(line.str());
}

std::string Problems::joined() const {
    std::string all;
    for (const auto& l : lines_) all += (all.empty() ? "" : "\n") + l;
    return all;
}

const toml::source_region& where(const toml::node* node, const toml::node& fallback) {
    return node ? node->source() : fallback.source();
}

std::string type_name(const toml::node& node) {
    switch (node.type()) {
        case toml::node_type::string: return "a string";
        case toml::node_type::integer: return "an integer";
        case toml::node_type::floating_point: return "a float";
        case toml::node_type::boolean: return "a boolean";
        case toml::node_type::array: return "an array";
        case toml::node_type::table: return "a table";
        default: return "a date or time";
    }
}

std::optional<double> finite_number(const toml::table& table, const std::string& key, const std::string& field,
                                    Problems& problems) {
    const toml::node* node = table.get(key);
    if (!node) return std::nullopt;
    std::optional<double> value;
    if (const auto* i = node->as_integer()) value = static_cast<double>(i->get());
    else if (const auto* f = node->as_floating_point()) value = f->get();
    if (!value) {
        problems.add(node->source(), field, "must be a number, not " + type_name(*node));
        return std::nullopt;
    }
    if (!std::isfinite(*value)) {
        problems.add(node->source(), field, "must be a finite number");
        return std::nullopt;
    }
    return value;
}

std::optional<std::string> string_value(const toml::table& table, const std::string& key, const std::string& field,
                                        Problems& problems) {
    const toml::node* node = table.get(key);
    if (!node) return std::nullopt;
    if (const auto* s = node->as_string()) return s->get();
    problems.add(node->source(), field, "must be a string, not " + type_name(*node));
    return std::nullopt;
}

void check_known_keys(const toml::table& table, const std::vector<std::string>& known, const std::string& prefix,
                      Problems& problems) {
    for (const auto& [key, node] : table) {
        bool found = false;
        for (const auto& k : known) found = found || key.str() == k;
        if (!found) problems.add(node.source(), prefix + std::string(key.str()), "unknown field");
    }
}

}  // namespace kp::task_fields
