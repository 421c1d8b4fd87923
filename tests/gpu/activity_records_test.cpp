// CUPTI activity records turned into the timeline document (src/gpu/activity/activity_records.h),
// from records built here: no GPU needed. A poll (cudaEventQuery) is left out, and so is the
// synchronization record it leaves behind; a real synchronization stays.
#include <gtest/gtest.h>

#include <cupti.h>

#include "gpu/activity/activity_records.h"

namespace {

using kp::gpu::activity::TraceRecords;

CUpti_ActivityAPI runtime_call(CUpti_CallbackId id, std::uint32_t correlation) {
    CUpti_ActivityAPI a{};
    a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
    a.cbid = id;
    a.correlationId = correlation;
    a.start = 100 * correlation;
    a.end = a.start + 10;
    return a;
}

CUpti_ActivitySynchronization2 synchronization(CUpti_ActivitySynchronizationType type, std::uint32_t correlation) {
    CUpti_ActivitySynchronization2 s{};
    s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
    s.type = type;
    s.correlationId = correlation;
    s.start = 100 * correlation;
    s.end = s.start + 5;
    return s;
}

void add(TraceRecords& records, const auto& record) {
    kp::gpu::activity::add_record(records, reinterpret_cast<const CUpti_Activity*>(&record));
}

}  // namespace

TEST(ActivityRecords, PollsAndTheirSynchronizationsAreLeftOut) {
    TraceRecords records;
    for (std::uint32_t poll = 1; poll <= 1000; ++poll) {
        add(records, runtime_call(CUPTI_RUNTIME_TRACE_CBID_cudaEventQuery_v3020, poll));
        add(records, synchronization(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE, poll));
    }
    add(records, runtime_call(CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, 2000));
    add(records, synchronization(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE, 2000));
    // A synchronization record that arrives before its poll's runtime record is dropped too.
    add(records, synchronization(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE, 3000));
    add(records, runtime_call(CUPTI_RUNTIME_TRACE_CBID_cudaEventQuery_v3020, 3000));

    const auto document = kp::gpu::activity::trace_document(records);
    EXPECT_EQ(document["polls_skipped"], 1001);
    ASSERT_EQ(document["runtime_api"].size(), 1u);
    EXPECT_EQ(document["runtime_api"][0]["name"], "cudaDeviceSynchronize");
    ASSERT_EQ(document["synchronizations"].size(), 1u) << document["synchronizations"].dump().substr(0, 400);
    EXPECT_EQ(document["synchronizations"][0]["type"], "context_synchronize");
    EXPECT_EQ(document["synchronizations"][0]["correlation_id"], 2000);
}
