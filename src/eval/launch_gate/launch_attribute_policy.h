// Which launch attributes a candidate may put on a cudaLaunchKernelEx launch (tasks that allow
// cutlass; docs/cutlass.md). A pure function over the attribute list, so the policy is tested
// without a GPU; the launch gate (launch_gate.cpp) applies it at run time inside the worker.
//
// Admitted: how the kernel's own CTAs are grouped and placed (cluster dimension, preferred
// cluster dimension, cluster scheduling policy), its shared-memory carve-out (cudaFuncSetAttribute
// can set the same), cooperative launch (cudaLaunchCooperativeKernel is allowed too), and
// programmatic stream serialization switched off. Everything else is refused, by name and why:
// access-policy windows (L2 persistence survives the harness's flush), priorities, programmatic
// dependent launch and its events (the kernel would overlap the harness's preceding work: the L2
// flush and the start event), launch-completion events, memory-synchronization domains,
// device-updatable graph nodes, NVLink scheduling hints, and ids this policy does not know.
#pragma once

#include <driver_types.h>

#include <string>

namespace kp::launch_gate {

struct AttributeVerdict {
    bool admitted = true;
    std::string reason;  // "" when admitted; else "cudaLaunchAttributeX: why"
};

// The name of an attribute id ("cudaLaunchAttributeClusterDimension"), or "launch attribute N".
std::string attribute_name(int id);

// The first attribute of `count` that is refused decides; an empty list is admitted.
AttributeVerdict judge_launch_attributes(const cudaLaunchAttribute* attributes, unsigned count);

}  // namespace kp::launch_gate
