// Plug-ins by registration: one name-keyed registry per kind (proposers, selection policies, stop
// rules, LLM providers). A plug-in is one .cpp file that holds its kind's registration line
// (KP_REGISTER_PROPOSER(...) and the like, each a thin wrapper of KP_REGISTER_PLUGINS below) and
// one CMake line, kp_add_plugin(LIBRARY FILE) (cmake/plugins.cmake). Nothing calls a plug-in by
// name, so a static library would drop its object file at link time; kp_add_plugin keeps it in
// every program that links LIBRARY through the anchor symbol the registration line defines.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace kp {

// Entry: a value type with a `std::string name` and, optionally, `std::vector<std::string> aliases`
// (other names that find the same entry).
template <typename Entry>
class PluginRegistry {
public:
    explicit PluginRegistry(std::string kind) : kind_(std::move(kind)) {}

    // Called by the registration lines during static initialization. A name or alias that is
    // already taken is a programming error (two plug-ins would answer to it).
    void add(Entry entry) {
        std::vector<std::string> keys{entry.name};
        if constexpr (requires { entry.aliases; }) keys.insert(keys.end(), entry.aliases.begin(), entry.aliases.end());
        for (const auto& key : keys)
            if (key.empty() || names_.count(key)) throw std::logic_error(kind_ + " '" + key + "' is registered twice");
        for (const auto& key : keys) names_[key] = entry.name;
        entries_.emplace(entry.name, std::move(entry));
    }

    // By name or alias; null when none answers to it.
    const Entry* find(std::string_view name) const {
        auto key = names_.find(name);
        return key == names_.end() ? nullptr : &entries_.find(key->second)->second;
    }

    // The one error message for a name nobody registered, listing those that are.
    Result<const Entry*> lookup(std::string_view name) const {
        if (const Entry* entry = find(name)) return entry;
        std::string aliases;
        for (const auto& [key, target] : names_)
            if (key != target) aliases += (aliases.empty() ? "; aliases: " : ", ") + key;
        return make_error("unknown " + kind_ + " '" + std::string(name) + "' (registered: " + joined_names() + aliases + ")");
    }

    // Registered names (not aliases), sorted: the order of listings and of checks.
    std::vector<std::string> names() const {
        std::vector<std::string> out;
        for (const auto& [name, entry] : entries_) out.push_back(name);
        return out;
    }
    std::vector<const Entry*> entries() const {
        std::vector<const Entry*> out;
        for (const auto& [name, entry] : entries_) out.push_back(&entry);
        return out;
    }
    std::string joined_names(std::string_view separator = ", ") const {
        std::string out;
        for (const auto& [name, entry] : entries_) out += (out.empty() ? "" : std::string(separator)) + name;
        return out;
    }
    const std::string& kind() const { return kind_; }

private:
    std::string kind_;                                      // "proposer", for messages
    std::map<std::string, Entry, std::less<>> entries_;     // by name
    std::map<std::string, std::string, std::less<>> names_;  // name or alias -> name
};

// What a registration line creates: adds its entries when the program starts.
template <typename Entry>
struct PluginRegistration {
    PluginRegistration(PluginRegistry<Entry>& registry, std::initializer_list<Entry> entries) {
        for (const auto& entry : entries) registry.add(entry);
    }
};

namespace detail {
constexpr bool same_text(const char* a, const char* b) {
    while (*a && *a == *b) ++a, ++b;
    return *a == *b;
}
}  // namespace detail

}  // namespace kp

#define KP_PLUGIN_TEXT_(x) #x
#define KP_PLUGIN_TEXT(x) KP_PLUGIN_TEXT_(x)

// KP_REGISTER_PLUGINS(Entry, registry, entry...): adds the entries to `registry` at start-up and
// defines the file's anchor (KP_PLUGIN_ANCHOR, set by kp_add_plugin). One per file.
#define KP_REGISTER_PLUGINS(Entry, registry, ...)                                                       \
    static_assert(!::kp::detail::same_text(KP_PLUGIN_TEXT(KP_PLUGIN_ANCHOR), "KP_PLUGIN_ANCHOR"),       \
                  "a plug-in file must be added with kp_add_plugin() in CMake (cmake/plugins.cmake)"); \
    extern "C" {                                                                                        \
    int KP_PLUGIN_ANCHOR = 0;                                                                           \
    }                                                                                                   \
    namespace {                                                                                         \
    const ::kp::PluginRegistration<Entry> kp_plugin_registration_{registry, {__VA_ARGS__}};             \
    }
