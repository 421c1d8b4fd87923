// The built-in collectors, one per file in collectors/ (make_<name>_collector() in
// collectors/<name>_collector.cpp). Adding one: its file, one X(name) line below, one line in
// CMakeLists.txt. The order here is the order within a stage and the order --list-collectors shows.
#include "diagnose/collector_registry.h"

#define KP_BUILTIN_COLLECTORS(X) \
    X(counters)                  \
    X(source_page)               \
    X(pc_sampling)               \
    X(sass)                      \
    X(ptxas)                     \
    X(timeline)                  \
    X(occupancy)

namespace kp::diagnose {

#define KP_DECLARE_FACTORY(name) std::unique_ptr<Collector> make_##name##_collector();
KP_BUILTIN_COLLECTORS(KP_DECLARE_FACTORY)
#undef KP_DECLARE_FACTORY

std::vector<std::unique_ptr<Collector>> make_builtin_collectors() {
    std::vector<std::unique_ptr<Collector>> collectors;
#define KP_ADD_COLLECTOR(name) collectors.push_back(make_##name##_collector());
    KP_BUILTIN_COLLECTORS(KP_ADD_COLLECTOR)
#undef KP_ADD_COLLECTOR
    return collectors;
}

}  // namespace kp::diagnose
