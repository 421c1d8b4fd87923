// Inputs whose values are the same in every trial and sample (a PyTorch module's parameters and
// buffers): read once from the task's safetensors files and uploaded into each input set the first
// time that set is used. They are still checksummed around every call, so a kernel that writes to
// a weight fails as it would for any input.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "eval/worker/tensor_sets.h"
#include "task/safetensors.h"

namespace kp::worker {

class FixedInputs {
public:
    // Reads every file the layouts name; throws WorkerFailure (crash, phase "reference") when a
    // tensor is missing or its dtype or size differ from the task's.
    static FixedInputs load(const std::vector<TensorLayout>& inputs);

    bool is_fixed(size_t input) const { return input < host_.size() && host_[input] != nullptr; }
    // Copies input `input` into `group` unless set `set` already holds it.
    void upload(size_t input, size_t set, const TensorGroup& group, cudaStream_t stream);

private:
    std::map<std::string, TensorSet> files_;
    std::vector<const HostTensor*> host_;            // per input; null when drawn at random
    std::vector<std::vector<bool>> uploaded_;        // [input][set]
};

}  // namespace kp::worker
