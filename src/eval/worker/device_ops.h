// The harness's own GPU work, all on the harness stream: filling inputs from seeds, checksums of
// inputs (mutation check), and the comparison of candidate outputs with the reference. Kernels are
// named kp_harness_* so profilers can tell them from the candidate's.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "task/task_spec.h"

namespace kp::worker {

struct DeviceBuffer {
    void* data = nullptr;
    DType dtype = DType::F32;
    int64_t elements = 0;  // storage elements
    size_t bytes() const { return static_cast<size_t>(elements) * dtype_size(dtype); }
};

// Deterministic in (seed, element index): the same seed always gives the same tensor, so a pristine
// input can be regenerated instead of kept.
cudaError_t fill_random(const DeviceBuffer& buffer, const Distribution& distribution, uint64_t seed, cudaStream_t stream);

// Redraws about one element in `one_in` (chosen by the seed) from the distribution, leaving the
// rest as they are: an input that looks the same to a kernel sampling a few positions but is not.
cudaError_t perturb_random(const DeviceBuffer& buffer, const Distribution& distribution, uint64_t seed, int one_in,
                           cudaStream_t stream);

// Invalidates the L2 lines of a 128-byte aligned buffer without write-back (PTX discard.global.L2,
// sm_80 and later): afterwards its contents are undefined.
cudaError_t discard_l2_lines(void* data, size_t bytes, cudaStream_t stream);
// Re-marks the L2 lines of the region evict-first (one load per 128-byte line; the region is
// scratch: a word of it may be overwritten).
cudaError_t mark_l2_lines_evict_first(void* data, size_t bytes, cudaStream_t stream);

// Queues a one-thread kernel that holds the stream until the host sets gate[0] (host-mapped
// memory) or `timeout_seconds` pass, when it sets gate[1]: work queued behind it starts back to
// back, without the host's launch latency in between.
cudaError_t hold_stream(volatile unsigned* gate, double timeout_seconds, cudaStream_t stream);

// Order-sensitive 64-bit checksum of the bytes (synchronizes the stream).
cudaError_t checksum(const DeviceBuffer& buffer, cudaStream_t stream, uint64_t* result);

struct CompareStats {
    int64_t elements = 0;
    int64_t mismatches = 0;         // outside atol + rtol * |ref|
    int64_t nonfinite_outputs = 0;  // NaN/inf where the reference is finite (includes poison left unwritten)
    int64_t first_mismatch = -1;
    double max_abs_error = 0;
    int64_t max_abs_index = -1;
    double max_rel_error = 0;
    int64_t max_rel_index = -1;
    double reference_min = 0, reference_max = 0, reference_mean_abs = 0;
};

// Compares `output` with `reference` elementwise (same dtype and size); synchronizes the stream.
cudaError_t compare_outputs(const DeviceBuffer& reference, const DeviceBuffer& output, double atol, double rtol,
                            cudaStream_t stream, CompareStats* stats);

// Reads one element as double (for messages).
cudaError_t read_element(const DeviceBuffer& buffer, int64_t index, double* value);

}  // namespace kp::worker
