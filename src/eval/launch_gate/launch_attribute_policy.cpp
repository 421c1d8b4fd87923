#include "eval/launch_gate/launch_attribute_policy.h"

namespace kp::launch_gate {

namespace {

struct Known {
    int id;
    const char* name;
    const char* refusal;  // nullptr: admitted
};

// Ids from CUDA 13's driver_types.h (cudaLaunchAttributeID), by number so that a newer header
// with more ids still compiles; an id not listed here is refused.
const Known kKnown[] = {
    {0, "cudaLaunchAttributeIgnore", nullptr},
    {1, "cudaLaunchAttributeAccessPolicyWindow", "an access-policy window keeps data persisting in L2 across the harness's L2 flush"},
    {2, "cudaLaunchAttributeCooperative", nullptr},
    {3, "cudaLaunchAttributeSynchronizationPolicy", "synchronization policy is the harness's business (it owns the stream)"},
    {4, "cudaLaunchAttributeClusterDimension", nullptr},
    {5, "cudaLaunchAttributeClusterSchedulingPolicyPreference", nullptr},
    {6, "cudaLaunchAttributeProgrammaticStreamSerialization",
     "programmatic dependent launch lets the kernel start before the harness's preceding work (its L2 flush and start event) "
     "has finished"},
    {7, "cudaLaunchAttributeProgrammaticEvent", "programmatic events overlap the kernel with work the harness times separately"},
    {8, "cudaLaunchAttributePriority", "launch priorities would let the kernel jump the harness's own work"},
    {9, "cudaLaunchAttributeMemSyncDomainMap", "memory-synchronization domains change how the harness's fences see the kernel"},
    {10, "cudaLaunchAttributeMemSyncDomain", "memory-synchronization domains change how the harness's fences see the kernel"},
    {11, "cudaLaunchAttributePreferredClusterDimension", nullptr},
    {12, "cudaLaunchAttributeLaunchCompletionEvent", "events belong to the harness"},
    {13, "cudaLaunchAttributeDeviceUpdatableKernelNode", "graph nodes belong to the harness"},
    {14, "cudaLaunchAttributePreferredSharedMemoryCarveout", nullptr},
    {16, "cudaLaunchAttributeNvlinkUtilCentricScheduling", "a scheduling hint for the runtime, not the kernel's to give"},
};

const Known* find(int id) {
    for (const auto& k : kKnown)
        if (k.id == id) return &k;
    return nullptr;
}

}  // namespace

std::string attribute_name(int id) {
    const Known* k = find(id);
    return k ? k->name : "launch attribute " + std::to_string(id);
}

AttributeVerdict judge_launch_attributes(const cudaLaunchAttribute* attributes, unsigned count) {
    if (count > 0 && attributes == nullptr) return {false, "numAttrs is " + std::to_string(count) + " but attrs is null"};
    for (unsigned i = 0; i < count; ++i) {
        const int id = static_cast<int>(attributes[i].id);
        const Known* k = find(id);
        if (!k) return {false, attribute_name(id) + ": not an attribute this harness knows, so not admitted"};
        // Serialization switched off is the launch's default: nothing overlaps.
        if (id == 6 && attributes[i].val.programmaticStreamSerializationAllowed == 0) continue;
        if (k->refusal) return {false, std::string(k->name) + ": " + k->refusal};
    }
    return {};
}

}  // namespace kp::launch_gate
