// Whose fault a worker's failure is, the device's or the candidate's, as far as a pool needs to
// know: a worker that could not start, or a CUDA error that names the device rather than the
// kernel, makes the device suspect; a worker started on it alone (device_check mode: context up,
// hello, nothing loaded) then decides.
#pragma once

#include "common/result.h"
#include "eval/gpu_pool.h"
#include "eval/worker_client.h"

namespace kp {

// Suspect: the worker could not start (an error), or it failed with a CUDA error of the device
// (no device, devices unavailable, an uncorrectable ECC error, a lost or reset device ...).
SlotVerdict device_verdict(const Result<WorkerOutcome>& outcome);

// Starts a worker in device_check mode on `options`' device; an error when it does not say hello.
Status probe_worker_device(WorkerOptions options);

// The pool's health check: probe_worker_device pinned to the slot's device.
GpuPool::HealthCheck worker_health_check(WorkerOptions options = {});

// `options` pinned to `device` (CUDA_VISIBLE_DEVICES) when the slot names one.
WorkerOptions pinned_to(WorkerOptions options, const GpuSlot& device);

}  // namespace kp
