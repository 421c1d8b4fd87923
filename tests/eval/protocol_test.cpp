#include <gtest/gtest.h>

#include "eval/failure_class.h"
#include "eval/protocol.h"

using namespace kp;

TEST(Protocol, RequestRoundTrip) {
    WorkerRequest r;
    r.task = {{"name", "t"}};
    r.candidate_library = "/x.so";
    r.seed = 12345678901234ull;
    r.trials = 3;
    r.timing.stopping.max_noise = 0.01;
    r.timing.input_sets = 4;
    r.timing.queued_start = true;
    r.timing.stopping.max_median_interval = 0.004;
    r.mode = "profile_counters";
    r.counter_metrics = {"dram__bytes_read.sum", "gpu__time_duration.sum"};
    r.counters_library = "/lib/libkp_counters.so";
    r.max_kernels = 4;
    r.variant = {0xFE, 0xA5, 77};
    r.sandbox.required = true;
    r.sandbox.disabled = {"landlock"};
    r.sandbox.scratch = "/tmp/s";
    r.sandbox.read_paths = {"/opt/python"};
    r.nonce = "00ff";
    r.extra_baselines = {{"compile", "/lib/libkp_torch_compile.so"}};
    auto j = to_json(r);
    EXPECT_EQ(j["protocol"], kWorkerProtocol);
    auto back = worker_request_from_json(j);
    EXPECT_EQ(back.seed, r.seed);
    EXPECT_EQ(back.trials, 3);
    EXPECT_EQ(back.candidate_library, "/x.so");
    EXPECT_DOUBLE_EQ(back.timing.stopping.max_noise, 0.01);
    EXPECT_EQ(back.timing.input_sets, 4);
    EXPECT_TRUE(back.timing.queued_start);
    EXPECT_DOUBLE_EQ(back.timing.stopping.max_median_interval, 0.004);
    EXPECT_EQ(back.mode, "profile_counters");
    EXPECT_EQ(back.counter_metrics, r.counter_metrics);
    EXPECT_EQ(back.counters_library, "/lib/libkp_counters.so");
    EXPECT_EQ(back.variant.poison_a, 0xFE);
    EXPECT_EQ(back.variant.poison_b, 0xA5);
    EXPECT_EQ(back.variant.layout, 77u);
    EXPECT_TRUE(back.sandbox.required);
    EXPECT_TRUE(back.sandbox.is_disabled("landlock"));
    EXPECT_FALSE(back.sandbox.is_disabled("seccomp"));
    EXPECT_EQ(back.sandbox.scratch, "/tmp/s");
    EXPECT_EQ(back.sandbox.read_paths, std::vector<std::string>{"/opt/python"});
    EXPECT_EQ(back.nonce, "00ff");
    EXPECT_EQ(back.max_kernels, 4);
    ASSERT_EQ(back.extra_baselines.size(), 1u);
    EXPECT_EQ(back.extra_baselines[0].name, "compile");
    EXPECT_EQ(back.extra_baselines[0].library, "/lib/libkp_torch_compile.so");
}

// A follow-up collection travels as one JSON line; the keys it leaves out keep the worker's defaults.
TEST(Protocol, CountingAskRoundTripAndDefaults) {
    CountingAsk ask{{"dram__bytes_read.sum", "sm__cycles_elapsed.avg"}, 4, 2, true, 0.0125};
    const auto line = nlohmann::json::parse(to_json(ask).dump());
    const CountingAsk back = counting_ask_from_json(line);
    EXPECT_EQ(back.counter_metrics, ask.counter_metrics);
    EXPECT_EQ(back.max_kernels, 4);
    EXPECT_EQ(back.trace_calls, 2);
    EXPECT_TRUE(back.pc_sampling);
    EXPECT_DOUBLE_EQ(back.call_seconds, 0.0125);

    CountingAsk defaults;
    defaults.max_kernels = 7;
    const CountingAsk sampled_only = counting_ask_from_json({{"pc_sampling", true}}, defaults);
    EXPECT_TRUE(sampled_only.counter_metrics.empty());
    EXPECT_EQ(sampled_only.max_kernels, 7);
    EXPECT_EQ(sampled_only.trace_calls, 0);
    EXPECT_TRUE(sampled_only.pc_sampling);
}

TEST(Protocol, FailureClassNames) {
    for (auto c : {FailureClass::Ok, FailureClass::CompileError, FailureClass::RejectedByGuard, FailureClass::Crash,
                   FailureClass::Timeout, FailureClass::OutOfMemory, FailureClass::Incorrect, FailureClass::InvalidTiming,
                   FailureClass::RejectedBySandbox})
        EXPECT_EQ(parse_failure_class(failure_class_name(c)), c);
    EXPECT_FALSE(parse_failure_class("bogus").has_value());
}
