// The summarizer against a hand-written trace (fixtures/timeline_small.json); the expected numbers
// are worked out by hand from the fixture's timestamps.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/files.h"
#include "fixture_path.h"
#include "gpu/timeline.h"

using namespace kp::gpu;

namespace {
Timeline load_fixture() {
    auto text = kp::read_text_file(gpu_fixture("timeline_small.json"));
    EXPECT_TRUE(text.ok());
    auto timeline = parse_timeline_json(*text);
    EXPECT_TRUE(timeline.ok()) << (timeline.ok() ? "" : timeline.error().message);
    return *timeline;
}
}  // namespace

TEST(Timeline, ParsesEveryRecordKind) {
    Timeline t = load_fixture();
    ASSERT_EQ(t.kernels.size(), 4u);
    EXPECT_EQ(t.kernels[0].name, "_Z6scale_PfS_i");
    EXPECT_EQ(t.kernels[0].grid[0], 528);
    EXPECT_EQ(t.kernels[0].block[0], 256);
    EXPECT_EQ(t.kernels[1].static_shared_bytes, 4096);
    EXPECT_EQ(t.kernels[1].dynamic_shared_bytes, 1024);
    EXPECT_EQ(t.memcpys.size(), 2u);
    EXPECT_EQ(t.memsets.size(), 1u);
    EXPECT_EQ(t.runtime_api.size(), 8u);
    EXPECT_EQ(t.synchronizations.size(), 1u);
}

TEST(Timeline, SummarizesKernelsPerCall) {
    TimelineSummary s = summarize_timeline(load_fixture(), 2);
    EXPECT_EQ(s.kernel_launches, 4u);
    EXPECT_DOUBLE_EQ(s.kernels_per_call, 2.0);
    ASSERT_EQ(s.kernels.size(), 3u);
    EXPECT_EQ(s.kernels[0].name, "_Z6scale_PfS_i");  // 4000 ns in total: the longest
    EXPECT_DOUBLE_EQ(s.kernels[0].launches_per_call, 1.0);
    EXPECT_EQ(s.kernels[0].duration.total_ns, 4000u);
    EXPECT_EQ(s.kernels[1].name, "bias_add");
    EXPECT_EQ(s.kernels[2].name, "side_stream_reduce");
    EXPECT_EQ(s.kernel_duration.total_ns, 5600u);
    // What the launch-overhead tool judges: per call of the operation.
    EXPECT_EQ(s.launches_per_call(), 2);
    EXPECT_DOUBLE_EQ(s.kernel_seconds_per_call(), 2800e-9);
    EXPECT_DOUBLE_EQ(s.span_seconds_per_call(), s.gpu_span_ns * 1e-9 / 2);
}

TEST(Timeline, LaunchGapsStayWithinAStream) {
    // Stream 7: 3500-3000 and 5000-4500; stream 8 has one kernel, so no gap.
    TimelineSummary s = summarize_timeline(load_fixture());
    EXPECT_EQ(s.launch_gaps.count, 2u);
    EXPECT_EQ(s.launch_gaps.total_ns, 1000u);
    EXPECT_DOUBLE_EQ(s.launch_gaps.median_ns, 500.0);
}

TEST(Timeline, LaunchOverheadJoinsByCorrelationId) {
    // 1000-400, 3500-3000, 5000-4800, 2000-1500 -> 600, 500, 200, 500.
    TimelineSummary s = summarize_timeline(load_fixture());
    EXPECT_EQ(s.launch_overhead.count, 4u);
    EXPECT_EQ(s.launch_overhead.total_ns, 1800u);
    EXPECT_DOUBLE_EQ(s.launch_overhead.median_ns, 500.0);
    EXPECT_EQ(s.launch_overhead.min_ns, 200u);
    EXPECT_EQ(s.launch_overhead.max_ns, 600u);
}

TEST(Timeline, TransfersAndHostSynchronization) {
    TimelineSummary s = summarize_timeline(load_fixture());
    EXPECT_EQ(s.memcpy_total.count, 2u);
    EXPECT_EQ(s.memcpy_total.bytes, 8192u);
    EXPECT_EQ(s.memcpy_total.total_ns, 250u);
    EXPECT_EQ(s.memcpy_by_kind.at("HtoD").bytes, 4096u);
    EXPECT_EQ(s.memcpy_by_kind.at("DtoH").total_ns, 100u);
    EXPECT_EQ(s.memset_total.count, 1u);
    EXPECT_EQ(s.memset_total.bytes, 1024u);
    // cudaDeviceSynchronize 2100 + cudaEventSynchronize 100.
    EXPECT_EQ(s.host_synchronization_calls, 2u);
    EXPECT_EQ(s.host_synchronization_ns, 2200u);
}

TEST(Timeline, BusyFractionCountsOverlapOnce) {
    // Span 1000..7000; union of kernels [1000,3000] [3500,4500] [5000,7000] (the side kernel overlaps).
    TimelineSummary s = summarize_timeline(load_fixture());
    EXPECT_EQ(s.gpu_span_ns, 6000u);
    EXPECT_NEAR(s.kernel_busy_fraction, 5000.0 / 6000.0, 1e-12);
    nlohmann::json j = s;
    EXPECT_EQ(j["launch_overhead"]["count"], 4);
}

TEST(Timeline, EmptyAndMalformedInput) {
    auto empty = parse_timeline_json(R"({"schema": "kernelpro.timeline.v1"})");
    ASSERT_TRUE(empty.ok());
    TimelineSummary s = summarize_timeline(*empty, 0);
    EXPECT_EQ(s.kernel_launches, 0u);
    EXPECT_EQ(s.calls, 1);
    EXPECT_FALSE(parse_timeline_json("{not json").ok());
    EXPECT_FALSE(parse_timeline_json(R"({"schema": "other"})").ok());
}
