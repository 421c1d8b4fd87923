// `--gpus all|0,2|N|UUID,...` for bench and optimize: the option (a bad value is a usage error,
// exit 2) and the pool it makes (more GPUs than the machine has, or one it does not have, is an
// environment error, exit 3).
#pragma once

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "common/result.h"
#include "eval/gpu_pool.h"

namespace kp::cli {

void add_gpus_option(CLI::App& cmd, std::string& value);

// The pool for `--gpus TEXT`; empty TEXT: one slot, the first GPU the process sees, unpinned
// (what kernelpro did before pools). A stand-in worker (KERNELPRO_WORKER) answers for its own
// devices, so its slots are taken as given: N or all -> indices 0..N-1 (all: 1), listed entries
// as written. Every slot's failures are checked by a worker started on its GPU alone.
Result<std::unique_ptr<GpuPool>> make_gpu_pool(const std::string& text);

}  // namespace kp::cli
