// Shared by the task.toml parsers: every validation problem collected with its line (so a user
// fixes them all in one go), numbers read whether written as integers or floats, unknown keys.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <toml++/toml.h>

namespace kp::task_toml {

class Problems {
public:
    explicit Problems(std::string file) : file_(std::move(file)) {}
    void add(const toml::source_region& where, const std::string& field, const std::string& what) {
        add_at(where.begin.line, field, what);
    }
    void add_at(int64_t line_number, const std::string& field, const std::string& what) {
        lines_.push_back(file_ + ":" + std::to_string(line_number) + ": " + field + ": " + what);
    }
    bool empty() const { return lines_.empty(); }
    std::string joined() const {
        std::string all;
        for (const auto& l : lines_) all += (all.empty() ? "" : "\n") + l;
        return all;
    }

private:
    std::string file_;
    std::vector<std::string> lines_;
};

inline std::optional<double> as_number(const toml::node* node) {
    if (!node) return std::nullopt;
    if (auto v = node->value<double>()) return *v;  // toml++ converts integers to double here
    return std::nullopt;
}

inline void check_known_keys(const toml::table& table, const std::vector<std::string>& known, const std::string& prefix,
                             Problems& problems) {
    for (const auto& [key, node] : table) {
        bool found = false;
        for (const auto& k : known) found = found || key.str() == k;
        if (!found) problems.add(node.source(), prefix + std::string(key.str()), "unknown field");
    }
}

}  // namespace kp::task_toml
