#include "diagnose/collector_registry.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace kp::diagnose {

const char* to_string(CollectorStage stage) {
    switch (stage) {
        case CollectorStage::counters: return "counters";
        case CollectorStage::build: return "build";
        case CollectorStage::kernels: return "kernels";
        case CollectorStage::call: return "call";
        case CollectorStage::refine: return "refine";
        case CollectorStage::reconcile: return "reconcile";
    }
    return "unknown";
}

void CollectorRegistry::add(std::unique_ptr<Collector> collector) {
    for (auto& existing : collectors_)
        if (existing->name() == collector->name()) {
            existing = std::move(collector);
            return;
        }
    collectors_.push_back(std::move(collector));
}

const Collector* CollectorRegistry::find(std::string_view name) const {
    for (const auto& c : collectors_)
        if (c->name() == name) return c.get();
    return nullptr;
}

std::vector<const Collector*> CollectorRegistry::all() const {
    std::vector<const Collector*> out;
    for (const auto& c : collectors_) out.push_back(c.get());
    return out;
}

std::set<std::string> CollectorRegistry::names() const {
    std::set<std::string> out;
    for (const auto& c : collectors_) out.emplace(c->name());
    return out;
}

std::set<std::string> CollectorRegistry::default_names() const {
    std::set<std::string> out;
    for (const auto& c : collectors_)
        if (c->on_by_default()) out.emplace(c->name());
    return out;
}

std::string CollectorRegistry::name_list() const {
    std::string out;
    for (const auto& c : collectors_) out += (out.empty() ? "" : ", ") + std::string(c->name());
    return out;
}

Result<CollectorRegistry::Selection> CollectorRegistry::apply_list(const std::vector<std::string>& items,
                                                                   const std::set<std::string>& base) const {
    Selection selection{base, {}};
    bool replaced = false;
    for (const std::string& item : items) {
        if (item.empty()) continue;
        const bool add = item.front() == '+', remove = item.front() == '-';
        std::string name = add || remove ? item.substr(1) : item;
        if (!find(name)) return make_error("unknown collector '" + name + "' (known: " + name_list() + ")");
        if (remove) {
            selection.enabled.erase(name);
            selection.named.erase(name);
            continue;
        }
        if (!add && !replaced) selection.enabled.clear();
        replaced = replaced || !add;
        selection.enabled.insert(name);
        selection.named.insert(name);
    }
    return selection;
}

const CollectorRegistry& default_collector_registry() {
    static const CollectorRegistry registry = [] {
        CollectorRegistry r;
        for (auto& c : make_builtin_collectors()) r.add(std::move(c));
        return r;
    }();
    return registry;
}

namespace {
std::vector<std::string> stage_names(const Collector& c) {
    std::vector<std::string> names;
    for (auto stage : c.stages()) names.emplace_back(to_string(stage));
    return names;
}
}  // namespace

std::string render_collector_list(const CollectorRegistry& registry) {
    std::string out;
    for (const Collector* c : registry.all()) {
        const auto cost = c->declared_cost();
        out += fmt::format("{:<10} {:<8} {:<6} stages={:<16} cost=~{} passes, ~{:.1f} s  {}\n", c->name(),
                           c->on_by_default() ? "default" : "opt-in", c->needs_gpu() ? "GPU" : "no-GPU",
                           fmt::format("{}", fmt::join(stage_names(*c), ",")), cost.replay_passes, cost.seconds, c->provides());
    }
    return out;
}

nlohmann::json collector_list_json(const CollectorRegistry& registry) {
    nlohmann::json collectors = nlohmann::json::array();
    for (const Collector* c : registry.all()) {
        const auto cost = c->declared_cost();
        collectors.push_back({{"name", c->name()},
                              {"provides", c->provides()},
                              {"default", c->on_by_default()},
                              {"needs_gpu", c->needs_gpu()},
                              {"stages", stage_names(*c)},
                              {"cost", {{"replay_passes", cost.replay_passes}, {"seconds", cost.seconds}}}});
    }
    return {{"schema", "kernelpro.collectors/1"}, {"collectors", collectors}};
}

}  // namespace kp::diagnose
