// Shared set-up for GPU evaluation tests: a builder (real nvcc, a private cache) and an evaluator
// using the worker built alongside the tests, with timing short enough for a test suite.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "../gpu_test_support.h"
#include "../source_tree.h"
#include "build/candidate_builder.h"
#include "eval/evaluator.h"

namespace kp::testing {

inline WorkerOptions test_worker_options() {
    WorkerOptions w;  // the worker through the resource locator: $KERNELPRO_WORKER, bin/, the build tree
    w.watchdog = std::chrono::seconds(60);
    return w;
}

inline EvaluationOptions quick_evaluation_options() {
    EvaluationOptions o;
    o.trials = 3;
    o.timing.stopping.min_seconds = 0.02;
    o.timing.stopping.max_seconds = 1.5;
    o.timing.stopping.min_samples = 10;
    o.call_timeout_seconds = 5.0;
    return o;
}

}  // namespace kp::testing
