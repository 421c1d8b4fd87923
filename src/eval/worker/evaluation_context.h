// What the worker's modes share about one task's tensors: their layouts, the rotating input sets,
// stored data sets and fixed parameters, and the steps that fill, checksum and compare them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "eval/protocol.h"
#include "eval/worker/channel.h"
#include "eval/worker/fixed_inputs.h"
#include "eval/worker/gpu_session.h"
#include "eval/worker/kernel_library.h"
#include "eval/worker/tensor_sets.h"
#include "task/safetensors.h"

namespace kp::worker {

struct EvaluationContext {
    const WorkerRequest& request;
    GpuSession& gpu;
    const Channel& channel;
    std::vector<TensorLayout> inputs, outputs;
    std::vector<TensorGroup> input_sets;  // rotated
    std::vector<TensorSet> data_sets;     // reference data from safetensors (when given)
    BufferLayout layout;                  // where every buffer lands (request.variant.layout)
    FixedInputs fixed;                    // parameters and buffers: the same values every time

    // The task's layouts and fixed inputs; no buffers yet.
    EvaluationContext(const WorkerRequest& request, GpuSession& gpu, const Channel& channel);
    TensorGroup group(const std::vector<TensorLayout>& tensors) { return TensorGroup(tensors, layout); }
};

// A seed for (round, tensor) drawn from the request's seed.
uint64_t mix_seed(uint64_t seed, uint64_t a, uint64_t b);

// Calls kp_setup with shapes only; a non-zero answer is the library's failure.
void setup_library(const KernelLibrary& library, const EvaluationContext& c, const std::string& phase);

// Fills input set `set` for trial/sample `round`: fresh values from the seed, or a stored data set.
// Returns the inputs' checksums.
std::vector<uint64_t> prepare_inputs(EvaluationContext& c, size_t set, uint64_t round);

// The same buffers as the previous sample with a sparse set of elements redrawn: a kernel that
// caches results by pointer, or by hashing a few input values, replays a stale answer and fails.
std::vector<uint64_t> perturb_inputs(EvaluationContext& c, size_t set, uint64_t round);

// The name of the first input whose checksum differs from `before`.
std::optional<std::string> inputs_changed(EvaluationContext& c, size_t set, const std::vector<uint64_t>& before);

// Compares every output with the expected ones; throws Incorrect on any mismatch.
nlohmann::json check_outputs(EvaluationContext& c, const TensorGroup& expected, const TensorGroup& got, const std::string& what);

// Reads request.reference_data_sets; each must hold every non-fixed tensor with the task's dtype and shape.
void load_data_sets(EvaluationContext& c);

// The stored expected outputs of data set `round` (modulo their number).
void upload_expected(EvaluationContext& c, size_t round, TensorGroup& expected);

}  // namespace kp::worker
