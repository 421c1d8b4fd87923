// Device storage for a task's tensors: buffers described by the task, and the kp_tensor views the
// ABI passes to kernels.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "eval/worker/device_ops.h"
#include "kernelpro/abi.h"
#include "task/task_spec.h"

namespace kp::worker {

struct TensorLayout {
    TensorSpec spec;
    double atol = 0, rtol = 0;  // outputs: resolved tolerances
};

// Reads the tensor lists of to_json(TaskSpec).
std::vector<TensorLayout> layouts_from_task_json(const nlohmann::json& task, const char* key);

// Where buffers land. Seed 0 keeps each buffer where cudaMalloc puts it; any other seed shifts
// each one by its own multiple of 256 bytes (alignment kept), so a kernel that keyed anything on
// addresses sees different ones in a re-verification.
class BufferLayout {
public:
    explicit BufferLayout(uint64_t seed = 0) : seed_(seed) {}
    size_t next_offset();  // bytes before the next buffer

private:
    uint64_t seed_;
    uint64_t count_ = 0;
};

// One buffer per tensor of a list; frees them on destruction.
class TensorGroup {
public:
    TensorGroup() = default;
    TensorGroup(const std::vector<TensorLayout>& layouts, BufferLayout& layout);
    TensorGroup(TensorGroup&&) noexcept;
    TensorGroup& operator=(TensorGroup&&) noexcept;
    TensorGroup(const TensorGroup&) = delete;
    ~TensorGroup();

    const DeviceBuffer& buffer(size_t i) const { return buffers_[i]; }
    size_t size() const { return buffers_.size(); }
    std::vector<kp_tensor>& views() { return views_; }
    // Fills every byte with `pattern` (poisoning outputs before a call).
    void poison(unsigned char pattern, cudaStream_t stream) const;

private:
    std::vector<DeviceBuffer> buffers_;
    std::vector<void*> allocations_;  // what cudaMalloc returned (buffers may start further in)
    std::vector<kp_tensor> views_;
};

// kp_tensor views with data == NULL, for kp_setup.
std::vector<kp_tensor> shape_only_views(const std::vector<TensorLayout>& layouts);

}  // namespace kp::worker
