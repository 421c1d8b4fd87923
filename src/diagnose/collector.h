// A collector: one source of profile data (hardware counters, ncu's source page, SASS, ptxas, the
// call's timeline, occupancy for the real launch). A profile runs every enabled collector at each
// of its stages, stage by stage in the order below, and each adds what it provides to the session.
// Adding one costs a file implementing this interface, one line in builtin_collectors.cpp and one
// line in CMakeLists.txt; `--collectors` and `--list-collectors` know it from the registry.
#pragma once

#include <string_view>
#include <vector>

#include "common/result.h"
#include "profile/collector.h"

namespace kp::diagnose {

struct ProfileSession;

enum class CollectorStage {
    counters,   // the counters of every kernel launch of one call: the kernel list comes from them
    build,      // from the build, no GPU (SASS, ptxas); after the counters, which they overlap
    kernels,    // per-kernel data once the kernel list exists (the source page)
    call,       // the whole call (the timeline); may add a kernel when none was counted
    refine,     // once the roofline classes are known: the second collection for their tools
    reconcile,  // derived from what the others brought (occupancy for the real launch)
};
const char* to_string(CollectorStage stage);

// What a collector tells the session before anything runs, so that steps read typed facts instead
// of asking which collectors were named.
struct CollectionPlan {
    bool counters = false;             // hardware counters are collected
    bool source_page_allowed = false;  // tools that want ncu's source page may get it
    bool trace_the_call = false;       // the counters run in the worker also traces one call (the timeline)
    bool sample_pcs = false;           // ... and samples the PCs of one call (stall reasons per source line)
};

class Collector {
public:
    virtual ~Collector() = default;
    virtual std::string_view name() const = 0;      // as --collectors names it
    virtual std::string_view provides() const = 0;  // one line: what it adds to the profile
    virtual std::vector<CollectorStage> stages() const = 0;
    virtual bool on_by_default() const { return true; }
    virtual bool needs_gpu() const { return false; }
    // What it costs on a typical candidate, by the same model the planner uses.
    virtual profile::CollectorCost declared_cost() const = 0;

    virtual void configure(CollectionPlan&) const {}
    // Background work begun before any stage (the SASS disassembly runs while the counters are counted).
    virtual void start(ProfileSession&) const {}
    // Its part at `stage`. An error means the profile cannot go on with GPU data: the kernels are
    // then diagnosed without counters, with this reason. A problem it can live with is a note.
    virtual Status collect(CollectorStage stage, ProfileSession& session) const = 0;
};

}  // namespace kp::diagnose
