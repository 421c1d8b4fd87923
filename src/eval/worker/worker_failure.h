// Inside the worker, a failure of the candidate (or of the device) unwinds to main as a
// WorkerFailure, which main reports on the channel as {"type":"failure"} before exiting.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "eval/failure_class.h"

namespace kp::worker {

struct WorkerFailure : std::runtime_error {
    WorkerFailure(FailureClass c, const std::string& message, std::string phase_name = "")
        : std::runtime_error(message), failure_class(c), phase(std::move(phase_name)) {}
    FailureClass failure_class;
    std::string phase;
};

// The class a CUDA error belongs to when it happens while candidate code runs.
inline FailureClass classify_cuda_error(cudaError_t e) {
    return e == cudaErrorMemoryAllocation ? FailureClass::OutOfMemory : FailureClass::Crash;
}

// Throws for any error: `what` names the operation.
inline void check_cuda(cudaError_t e, const std::string& what, FailureClass c = FailureClass::Crash) {
    if (e != cudaSuccess)
        throw WorkerFailure(e == cudaErrorMemoryAllocation ? FailureClass::OutOfMemory : c,
                            what + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

}  // namespace kp::worker
