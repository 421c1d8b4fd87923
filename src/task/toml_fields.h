// Typed reads of task.toml fields that tell the three failures apart: absent, of the wrong type
// ("must be a number", not "missing"), and out of range (non-finite numbers, negative counts).
// Every problem is collected with its line, so the user fixes them all in one go.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <toml++/toml.h>

namespace kp::task_fields {

class Problems {
public:
    explicit Problems(std::string file) : file_(std::move(file)) {}
    void add(const toml::source_region& where, const std::string& field, const std::string& what);
    void add_at(int64_t line_number, const std::string& field, const std::string& what);
    bool empty() const { return lines_.empty(); }
    std::string joined() const;

private:
    std::string file_;
    std::vector<std::string> lines_;
};

// The node's line, or the table's when the node is absent.
const toml::source_region& where(const toml::node* node, const toml::node& fallback);

// A finite number (integer or float). Absent: nullopt without a problem; anything else that is
// not a finite number: a problem and nullopt.
std::optional<double> finite_number(const toml::table& table, const std::string& key, const std::string& field,
                                    Problems& problems);

// A string. Absent: nullopt without a problem; another type: a problem.
std::optional<std::string> string_value(const toml::table& table, const std::string& key, const std::string& field,
                                        Problems& problems);

// Fields the table holds that are not in `known` are problems ("unknown field").
void check_known_keys(const toml::table& table, const std::vector<std::string>& known, const std::string& prefix,
                      Problems& problems);

// "a string", "an array", ...: what the user wrote, for messages.
std::string type_name(const toml::node& node);

}  // namespace kp::task_fields
