// Collectors registered by name. default_collector_registry() holds every built-in one
// (builtin_collectors.cpp); a profile can be given another registry (tests add their own).
#pragma once

#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "diagnose/collector.h"

namespace kp::diagnose {

class CollectorRegistry {
public:
    void add(std::unique_ptr<Collector> collector);  // a second one with the same name replaces the first
    const Collector* find(std::string_view name) const;
    std::vector<const Collector*> all() const;  // in registration order: the order within a stage

    std::set<std::string> names() const;
    std::set<std::string> default_names() const;  // those on by default
    std::string name_list() const;                // "ncu, source, sass, ..." for messages

    // --collectors: a plain list replaces `base`; +NAME adds to it, -NAME removes.
    struct Selection {
        std::set<std::string> enabled;
        std::set<std::string> named;  // asked for by name (a collector may then run unconditionally)
    };
    Result<Selection> apply_list(const std::vector<std::string>& items, const std::set<std::string>& base) const;

private:
    std::vector<std::unique_ptr<Collector>> collectors_;
};

const CollectorRegistry& default_collector_registry();
std::vector<std::unique_ptr<Collector>> make_builtin_collectors();

// `kernelpro profile --list-collectors`: one line per collector (name, on by default or not, GPU,
// stages, declared cost, what it provides), or the same as JSON (schema kernelpro.collectors/1).
std::string render_collector_list(const CollectorRegistry& registry = default_collector_registry());
nlohmann::json collector_list_json(const CollectorRegistry& registry = default_collector_registry());

}  // namespace kp::diagnose
