// The GPU pool as a unit, with fake jobs on fake devices: slots handed out lowest-free-first and
// waiting callers served in arrival order, a failing device checked, retired and its job given
// back to the queue, a healthy device's verdict left standing, and the busy-time accounting.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "eval/gpu_pool.h"

using namespace kp;

namespace {

std::vector<GpuSlot> fake_devices(int n) {
    std::vector<GpuSlot> slots;
    for (int i = 0; i < n; ++i) slots.push_back({i, "GPU-fake-" + std::to_string(i), "Fake GPU", std::to_string(i)});
    return slots;
}

void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

}  // namespace

TEST(GpuPool, OneCallerAtATimeAlwaysGetsTheLowestSlot) {
    GpuPool pool(fake_devices(3));
    std::vector<int> used;
    for (int i = 0; i < 4; ++i)
        ASSERT_TRUE(pool.run([&](int slot, const GpuSlot&) {
                        used.push_back(slot);
                        return SlotVerdict{};
                    }).ok());
    EXPECT_EQ(used, (std::vector<int>{0, 0, 0, 0}));
}

TEST(GpuPool, ConcurrentJobsNeverShareASlotAndUseEverySlot) {
    GpuPool pool(fake_devices(3));
    std::atomic<int> in_slot[3] = {0, 0, 0};
    std::atomic<bool> shared{false};
    std::atomic<int> peak{0}, running{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 9; ++t)
        threads.emplace_back([&] {
            ASSERT_TRUE(pool.run([&](int slot, const GpuSlot& device) {
                            EXPECT_EQ(device.index, slot);
                            if (in_slot[slot]++ > 0) shared = true;
                            int now = ++running;
                            int seen = peak.load();
                            while (now > seen && !peak.compare_exchange_weak(seen, now)) {
                            }
                            sleep_ms(30);
                            --running;
                            --in_slot[slot];
                            return SlotVerdict{};
                        }).ok());
        });
    for (auto& t : threads) t.join();
    EXPECT_FALSE(shared.load());
    EXPECT_EQ(peak.load(), 3);
    auto figures = pool.meter().figures();
    EXPECT_EQ(figures.evaluations, 9);
    for (long n : figures.evaluations_per_slot) EXPECT_GT(n, 0);
}

// `--gpus 0,0,1`: slots 0 and 1 are one GPU and take turns; slot 2 runs beside either.
TEST(GpuPool, SlotsSharingAGpuTakeTurns) {
    auto slots = fake_devices(2);
    slots.insert(slots.begin() + 1, slots[0]);
    GpuPool pool(slots);
    std::atomic<int> on_gpu0{0}, peak_gpu0{0}, running{0}, peak{0};
    auto raise = [](std::atomic<int>& peak_value, int now) {
        int seen = peak_value.load();
        while (now > seen && !peak_value.compare_exchange_weak(seen, now)) {
        }
    };
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([&] {
            ASSERT_TRUE(pool.run([&](int, const GpuSlot& device) {
                            const bool gpu0 = device.index == 0;
                            if (gpu0) raise(peak_gpu0, ++on_gpu0);
                            raise(peak, ++running);
                            sleep_ms(20);
                            --running;
                            if (gpu0) --on_gpu0;
                            return SlotVerdict{};
                        }).ok());
        });
    for (auto& t : threads) t.join();
    EXPECT_EQ(peak_gpu0.load(), 1) << "two slots of one GPU ran at once";
    EXPECT_EQ(peak.load(), 2);  // one job on GPU 0 beside one on GPU 1
}

TEST(GpuPool, WaitingCallersAreServedInArrivalOrder) {
    GpuPool pool(fake_devices(1));
    std::mutex order_mutex;
    std::vector<int> order;
    std::atomic<bool> release{false};
    std::thread holder([&] {
        (void)pool.run([&](int, const GpuSlot&) {
            while (!release) sleep_ms(1);
            return SlotVerdict{};
        });
    });
    sleep_ms(20);
    std::vector<std::thread> waiters;
    for (int i = 0; i < 4; ++i) {
        waiters.emplace_back([&, i] {
            (void)pool.run([&](int, const GpuSlot&) {
                std::lock_guard<std::mutex> lock(order_mutex);
                order.push_back(i);
                return SlotVerdict{};
            });
        });
        sleep_ms(20);  // each waiter queues before the next one arrives
    }
    release = true;
    holder.join();
    for (auto& w : waiters) w.join();
    EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3}));
}

TEST(GpuPool, AFailingDeviceIsRetiredReportedAndItsJobsRunElsewhere) {
    // Device 1 is broken: every job on it says so, and the health check agrees.
    GpuPool pool(fake_devices(3), [](const GpuSlot& d) -> Status {
        if (d.index == 1) return make_error("no hello");
        return {};
    });
    std::mutex m;
    std::vector<int> finished_on;
    std::atomic<int> attempts_on_1{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 12; ++t)
        threads.emplace_back([&] {
            int done_on = -1;
            ASSERT_TRUE(pool.run([&](int slot, const GpuSlot&) {
                            sleep_ms(10);
                            if (slot == 1) {
                                ++attempts_on_1;
                                return SlotVerdict{true, "the evaluation worker could not start"};
                            }
                            done_on = slot;
                            return SlotVerdict{};
                        }).ok());
            std::lock_guard<std::mutex> lock(m);
            finished_on.push_back(done_on);
        });
    for (auto& t : threads) t.join();
    ASSERT_EQ(finished_on.size(), 12u);  // every job ran to the end: the failed one was re-queued
    for (int slot : finished_on) EXPECT_NE(slot, 1);
    EXPECT_EQ(attempts_on_1.load(), 1);  // retired after its first failure
    auto retired = pool.retired();
    ASSERT_EQ(retired.size(), 1u);
    EXPECT_EQ(retired[0].slot, 1);
    EXPECT_EQ(retired[0].device.uuid, "GPU-fake-1");
    EXPECT_NE(retired[0].reason.find("could not start"), std::string::npos) << retired[0].reason;
    EXPECT_NE(retired[0].reason.find("no hello"), std::string::npos) << retired[0].reason;
    EXPECT_NE(pool.summary_markdown().find("Retired: GPU 1 (Fake GPU, GPU-fake-1)"), std::string::npos) << pool.summary_markdown();
    auto figures = pool.meter().figures();
    EXPECT_EQ(figures.evaluations, 12);  // the failed attempt is not counted as a candidate
    EXPECT_EQ(figures.evaluations_per_slot[1], 0);
}

TEST(GpuPool, ASuspectDeviceThatPassesItsCheckKeepsServingAndTheJobsVerdictStands) {
    int checks = 0;
    GpuPool pool(fake_devices(1), [&](const GpuSlot&) -> Status {
        ++checks;
        return {};
    });
    int runs = 0;
    ASSERT_TRUE(pool.run([&](int, const GpuSlot&) {
                    ++runs;
                    return SlotVerdict{true, "cudaErrorECCUncorrectable? no: the candidate's own doing"};
                }).ok());
    EXPECT_EQ(runs, 1);  // not given back: the device is fine
    EXPECT_EQ(checks, 1);
    EXPECT_TRUE(pool.retired().empty());
}

TEST(GpuPool, WhenEveryDeviceFailsTheCallersGetOneErrorNamingThem) {
    GpuPool pool(fake_devices(2), [](const GpuSlot&) -> Status { return make_error("gone"); });
    auto ran = pool.run([](int, const GpuSlot&) { return SlotVerdict{true, "device lost"}; });
    ASSERT_FALSE(ran.ok());
    EXPECT_NE(ran.error().message.find("every GPU of the pool failed"), std::string::npos) << ran.error().message;
    EXPECT_NE(ran.error().message.find("GPU 0"), std::string::npos);
    EXPECT_NE(ran.error().message.find("GPU 1"), std::string::npos);
    EXPECT_EQ(pool.retired().size(), 2u);
    EXPECT_FALSE(pool.run([](int, const GpuSlot&) { return SlotVerdict{}; }).ok());  // nothing left to run on
}

TEST(ThroughputMeter, BusyFractionOverlapAndCandidatesPerGpuHour) {
    ThroughputMeter meter(2);
    // Slot 0 busy 0-10 s (2 candidates), slot 1 busy 5-10 s (1), compiling 0-4 and 8-12 s.
    meter.note_busy(0, {100, 105}, true);
    meter.note_busy(0, {105, 110}, true);
    meter.note_busy(1, {105, 110}, true);
    meter.note_compile({100, 104});
    meter.note_compile({108, 112});
    auto f = meter.figures();
    EXPECT_DOUBLE_EQ(f.wall_seconds, 12);
    EXPECT_DOUBLE_EQ(f.gpu_busy_seconds, 15);
    EXPECT_DOUBLE_EQ(f.busy_fraction, 15.0 / 24.0);
    EXPECT_DOUBLE_EQ(f.compile_seconds, 8);
    EXPECT_DOUBLE_EQ(f.overlap_seconds, 6);  // 0-4 and 8-10 lie under GPU work, 10-12 does not
    EXPECT_DOUBLE_EQ(f.overlap_fraction, 0.75);
    EXPECT_EQ(f.evaluations, 3);
    EXPECT_DOUBLE_EQ(f.candidates_per_gpu_hour, 3 / (2 * 12 / 3600.0));
    EXPECT_EQ(f.to_json()["gpus"], 2);
    EXPECT_NE(f.summary().find("3 candidates on 2 GPUs"), std::string::npos) << f.summary();

    // The same two slots on one GPU: per-GPU figures count the GPU once.
    ThroughputMeter shared(2, 1);
    shared.note_busy(0, {0, 5}, true);
    shared.note_busy(1, {5, 10}, true);
    auto g = shared.figures();
    EXPECT_EQ(g.devices, 1);
    EXPECT_DOUBLE_EQ(g.busy_fraction, 1.0);
    EXPECT_DOUBLE_EQ(g.candidates_per_gpu_hour, 2 / (10 / 3600.0));
    EXPECT_EQ(g.to_json()["slots"], 2);
    EXPECT_NE(g.summary().find("2 candidates on 1 GPU (2 slots)"), std::string::npos) << g.summary();
}

TEST(ThroughputMeter, UnionAndIntersectionCountOverlapsOnce) {
    EXPECT_DOUBLE_EQ(union_length({{0, 2}, {1, 3}, {5, 6}}), 4);
    EXPECT_DOUBLE_EQ(intersection_length({{0, 4}}, {{1, 2}, {1.5, 3}, {10, 11}}), 2);
    EXPECT_DOUBLE_EQ(intersection_length({}, {{0, 1}}), 0);
    EXPECT_DOUBLE_EQ(ThroughputMeter(1).figures().busy_fraction, 0);
}
