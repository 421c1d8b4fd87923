// The launch gate of CUTLASS candidates without a GPU: the attribute policy as a pure function,
// then the real libkp_launch_gate.so: a refused launch never reaches the CUDA runtime and leaves
// its reason for the worker; an admitted one is handed to the runtime unchanged (which, on a
// machine without a GPU, answers with its own error, never cudaErrorNotPermitted).
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "eval/launch_gate/launch_attribute_policy.h"

extern "C" {
cudaError_t __wrap_cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* func, void** args);
const char* kp_launch_gate_refusal(void);
void kp_launch_gate_clear(void);
}

using namespace kp::launch_gate;

namespace {

cudaLaunchAttribute cluster(unsigned x) {
    cudaLaunchAttribute a{};
    a.id = cudaLaunchAttributeClusterDimension;
    a.val.clusterDim.x = x;
    a.val.clusterDim.y = 1;
    a.val.clusterDim.z = 1;
    return a;
}

cudaLaunchAttribute with_id(cudaLaunchAttributeID id) {
    cudaLaunchAttribute a{};
    a.id = id;
    return a;
}

cudaLaunchAttribute pdl(int allowed) {
    cudaLaunchAttribute a = with_id(cudaLaunchAttributeProgrammaticStreamSerialization);
    a.val.programmaticStreamSerializationAllowed = allowed;
    return a;
}

AttributeVerdict judge(const std::vector<cudaLaunchAttribute>& list) {
    return judge_launch_attributes(list.data(), static_cast<unsigned>(list.size()));
}

}  // namespace

TEST(LaunchAttributePolicy, AdmitsHowAKernelGroupsItsOwnBlocks) {
    EXPECT_TRUE(judge({}).admitted);
    EXPECT_TRUE(judge({cluster(2)}).admitted);
    auto preferred = with_id(cudaLaunchAttributePreferredClusterDimension);
    auto scheduling = with_id(cudaLaunchAttributeClusterSchedulingPolicyPreference);
    auto carveout = with_id(cudaLaunchAttributePreferredSharedMemoryCarveout);
    auto cooperative = with_id(cudaLaunchAttributeCooperative);
    EXPECT_TRUE(judge({cluster(2), preferred, scheduling, carveout, cooperative, with_id(cudaLaunchAttributeIgnore)}).admitted);
    // CUTLASS's ClusterLauncher without launch_with_pdl sends no PDL attribute; switched off is harmless too.
    EXPECT_TRUE(judge({cluster(2), pdl(0)}).admitted);
}

TEST(LaunchAttributePolicy, RefusesWhatChangesTheMeasurementByNameAndWhy) {
    struct Case {
        cudaLaunchAttribute attribute;
        const char* name;
        const char* why;
    };
    const std::vector<Case> cases{
        {with_id(cudaLaunchAttributeAccessPolicyWindow), "cudaLaunchAttributeAccessPolicyWindow", "L2"},
        {pdl(1), "cudaLaunchAttributeProgrammaticStreamSerialization", "before the harness's preceding work"},
        {with_id(cudaLaunchAttributeProgrammaticEvent), "cudaLaunchAttributeProgrammaticEvent", "overlap"},
        {with_id(cudaLaunchAttributePriority), "cudaLaunchAttributePriority", "priorit"},
        {with_id(cudaLaunchAttributeMemSyncDomain), "cudaLaunchAttributeMemSyncDomain", "fences"},
        {with_id(cudaLaunchAttributeMemSyncDomainMap), "cudaLaunchAttributeMemSyncDomainMap", "fences"},
        {with_id(cudaLaunchAttributeLaunchCompletionEvent), "cudaLaunchAttributeLaunchCompletionEvent", "events"},
        {with_id(cudaLaunchAttributeDeviceUpdatableKernelNode), "cudaLaunchAttributeDeviceUpdatableKernelNode", "graph"},
        {with_id(cudaLaunchAttributeSynchronizationPolicy), "cudaLaunchAttributeSynchronizationPolicy", "stream"},
        {with_id(static_cast<cudaLaunchAttributeID>(99)), "launch attribute 99", "not an attribute this harness knows"},
    };
    for (const auto& c : cases) {
        // After an admitted cluster dimension, as a real Hopper launch would carry it.
        auto verdict = judge({cluster(2), c.attribute});
        EXPECT_FALSE(verdict.admitted) << c.name;
        EXPECT_EQ(verdict.reason.rfind(c.name, 0), 0u) << verdict.reason;
        EXPECT_NE(verdict.reason.find(c.why), std::string::npos) << verdict.reason;
    }
    EXPECT_FALSE(judge_launch_attributes(nullptr, 1).admitted);
}

TEST(LaunchGate, ARefusedLaunchNeverReachesTheRuntimeAndLeavesItsReason) {
    kp_launch_gate_clear();
    cudaLaunchAttribute attributes[2] = {cluster(2), with_id(cudaLaunchAttributeAccessPolicyWindow)};
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(2);
    config.blockDim = dim3(32);
    config.attrs = attributes;
    config.numAttrs = 2;
    EXPECT_EQ(__wrap_cudaLaunchKernelExC(&config, nullptr, nullptr), cudaErrorNotPermitted);
    std::string reason = kp_launch_gate_refusal();
    EXPECT_EQ(reason.rfind("launch gate: cudaLaunchKernelEx refused: cudaLaunchAttributeAccessPolicyWindow:", 0), 0u) << reason;
    // The first refusal is kept: a later one does not overwrite what the worker reports.
    attributes[1] = pdl(1);
    EXPECT_EQ(__wrap_cudaLaunchKernelExC(&config, nullptr, nullptr), cudaErrorNotPermitted);
    EXPECT_EQ(kp_launch_gate_refusal(), reason);
    kp_launch_gate_clear();
    EXPECT_STREQ(kp_launch_gate_refusal(), "");
}

TEST(LaunchGate, AnAdmittedLaunchGoesToTheRuntime) {
    kp_launch_gate_clear();
    cudaLaunchAttribute attributes[1] = {cluster(2)};
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(2);
    config.blockDim = dim3(32);
    config.attrs = attributes;
    config.numAttrs = 1;
    // A null kernel: the runtime refuses it (or reports no GPU) with an error of its own.
    cudaError_t answer = __wrap_cudaLaunchKernelExC(&config, nullptr, nullptr);
    EXPECT_NE(answer, cudaErrorNotPermitted);
    EXPECT_NE(answer, cudaSuccess);
    EXPECT_STREQ(kp_launch_gate_refusal(), "");
}
