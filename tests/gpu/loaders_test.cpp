// The driver and NVML loaders. Without a GPU they must fail with a "no GPU:" message (and these
// tests are skipped with it); with one, the values must be plausible.
#include <gtest/gtest.h>

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "gpu/clock_monitor.h"
#include "gpu/cuda_driver.h"
#include "gpu/device_info.h"
#include "gpu/dynamic_library.h"
#include "gpu/nvml_library.h"

using namespace kp::gpu;

TEST(CudaDriver, LoadsOrSaysThereIsNoGpu) {
    auto driver = CudaDriver::load();
    if (!driver) {
        EXPECT_EQ(driver.error().message.rfind("no GPU:", 0), 0u) << driver.error().message;
        GTEST_SKIP() << driver.error().message;
    }
    EXPECT_GE(driver->driver_version(), 12000);
    auto devices = driver->all_devices();
    ASSERT_TRUE(devices.ok()) << devices.error().message;
    ASSERT_FALSE(devices->empty());
    const DeviceInfo& d = devices->front();
    EXPECT_FALSE(d.name.empty());
    EXPECT_GE(d.compute_capability_major, 7);
    EXPECT_GT(d.sm_count, 0);
    EXPECT_GT(d.l2_cache_bytes, 0);
    EXPECT_EQ(d.max_warps_per_sm * d.warp_size, d.max_threads_per_sm);
    EXPECT_GE(d.shared_memory_per_block_optin_bytes, d.shared_memory_per_block_bytes);
    EXPECT_GT(d.theoretical_dram_bytes_per_second(), 1e11);
}

TEST(Nvml, LoadsOrSaysThereIsNoGpu) {
    auto nvml = Nvml::load();
    if (!nvml) {
        EXPECT_EQ(nvml.error().message.rfind("no GPU:", 0), 0u) << nvml.error().message;
        GTEST_SKIP() << nvml.error().message;
    }
    EXPECT_FALSE(nvml->driver_version().empty());
    auto count = nvml->device_count();
    ASSERT_TRUE(count.ok());
    ASSERT_GT(*count, 0u);
    auto sample = nvml->sample(0);
    ASSERT_TRUE(sample.ok()) << sample.error().message;
    ASSERT_TRUE(sample->sm_clock_mhz.has_value());
    EXPECT_GT(*sample->sm_clock_mhz, 0u);
    if (sample->max_sm_clock_mhz) {
        EXPECT_LE(*sample->sm_clock_mhz, *sample->max_sm_clock_mhz);
    }
}

TEST(DeviceInfo, JsonRoundTrip) {
    DeviceInfo h200 = h200_reference_device();
    nlohmann::json j = h200;
    EXPECT_EQ(j["compute_capability"], "9.0");
    DeviceInfo back = j.get<DeviceInfo>();
    EXPECT_EQ(back.name, "NVIDIA H200");
    EXPECT_EQ(back.sm_count, 132);
    EXPECT_EQ(back.l2_cache_bytes, 62914560);
    EXPECT_EQ(back.memory_bus_width_bits, 6016);
    EXPECT_EQ(back.sm_target(), "sm_90");
    // 2 x 3201 MHz x 752 B = 4.81 TB/s, docs/device.md.
    EXPECT_NEAR(back.theoretical_dram_bytes_per_second(), 4.81e12, 0.01e12);
}

TEST(DeviceInfo, MissingJsonKeysKeepDefaults) {
    DeviceInfo d = nlohmann::json::parse(R"({"name": "x", "sm_count": 4})").get<DeviceInfo>();
    EXPECT_EQ(d.name, "x");
    EXPECT_EQ(d.sm_count, 4);
    EXPECT_EQ(d.warp_size, 32);
}

TEST(DeviceInfo, FormatsCudaVersions) {
    EXPECT_EQ(format_cuda_version(13000), "13.0");
    EXPECT_EQ(format_cuda_version(12080), "12.8");
    EXPECT_EQ(format_cuda_version(0), "unknown");
}

// The NVML session must stay initialized for as long as an Nvml (or a copy) lives. It did not:
// a temporary made during load() called nvmlShutdown at once, so on the H200 every query failed
// (no driver version, no SM clock beside any ceiling). The stand-in fails queries made after its
// init count drops to zero, as NVML does.
TEST(Nvml, StaysInitializedWhileInUse) {
    auto nvml = Nvml::load_from(KP_FAKE_NVML);
    ASSERT_TRUE(nvml) << nvml.error().message;
    EXPECT_EQ(nvml->driver_version(), "999.12.34");
    auto count = nvml->device_count();
    ASSERT_TRUE(count) << count.error().message;
    EXPECT_EQ(*count, 1u);
    auto sample = nvml->sample(0);
    ASSERT_TRUE(sample) << sample.error().message;
    EXPECT_EQ(sample->sm_clock_mhz, 1755u);
    {
        Nvml copy = *nvml;  // copies share the session: the last one shuts NVML down
        EXPECT_EQ(copy.driver_version(), "999.12.34");
    }
    EXPECT_EQ(nvml->driver_version(), "999.12.34");
}

TEST(Nvml, ReadsTheEnergyCounterAlone) {
    auto nvml = Nvml::load_from(KP_FAKE_NVML);
    ASSERT_TRUE(nvml) << nvml.error().message;
    auto first = nvml->total_energy_millijoules(0);
    auto second = nvml->total_energy_millijoules(0);
    ASSERT_TRUE(first && second) << (first ? second.error().message : first.error().message);
    EXPECT_EQ(*second - *first, 7u);
    auto missing = nvml->total_energy_millijoules(3);
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().message.find("nvmlDeviceGetHandleByIndex"), std::string::npos);
}

TEST(Nvml, MissingLibraryIsNoGpu) {
    auto nvml = Nvml::load_from("/nonexistent/libnvidia-ml.so.1");
    ASSERT_FALSE(nvml);
    EXPECT_EQ(nvml.error().message.rfind("no GPU:", 0), 0u) << nvml.error().message;
}

TEST(NvmlReasons, NamesEachBit) {
    EXPECT_TRUE(describe_clock_event_reasons(0).empty());
    auto names = describe_clock_event_reasons(0x1 | 0x4 | 0x40);
    ASSERT_EQ(names.size(), 3u);
    EXPECT_EQ(names[0], "gpu_idle");
    EXPECT_EQ(names[1], "sw_power_cap");
    EXPECT_EQ(names[2], "hw_thermal_slowdown");
    EXPECT_EQ(describe_clock_event_reasons(0x10000).back(), "other(0x10000)");
    EXPECT_FALSE(clock_events_limit_performance(0x1));
    EXPECT_TRUE(clock_events_limit_performance(0x1 | 0x4));
}

// One throttle policy: power, thermal and hardware slowdowns flag a sample; idle, sync boost and
// clocks an administrator set do not (a set clock is steady).
TEST(NvmlReasons, ThrottlePolicyCountsSlowdownsNotSettings) {
    for (std::uint64_t slowdown : {0x4ull, 0x8ull, 0x20ull, 0x40ull, 0x80ull}) EXPECT_TRUE(clock_events_limit_performance(slowdown)) << slowdown;
    for (std::uint64_t setting : {0x1ull, 0x2ull, 0x10ull, 0x100ull}) EXPECT_FALSE(clock_events_limit_performance(setting)) << setting;
}

// The worker's clock readings: NVML's device found by the PCI bus id CUDA gave (not by index), the
// SM clock and whether a slowdown holds it down; nothing at all, and the reason, when NVML or the
// device is missing.
TEST(ClockMonitor, FindsTheDeviceByPciBusIdAndFlagsSlowdowns) {
    ::unsetenv("FAKE_NVML_CLOCK_EVENT_REASONS");
    auto monitor = ClockMonitor::open("0000:3B:00.0", KP_FAKE_NVML);
    ASSERT_TRUE(monitor.available()) << monitor.why_unavailable();
    EXPECT_EQ(monitor.driver_version(), "999.12.34");
    auto idle = monitor.read();
    EXPECT_EQ(idle.sm_clock_mhz, 1755u);
    EXPECT_FALSE(idle.throttled);
    ::setenv("FAKE_NVML_CLOCK_EVENT_REASONS", "6", 1);  // applications clocks + software power cap
    EXPECT_TRUE(monitor.read().throttled);
    ::setenv("FAKE_NVML_CLOCK_EVENT_REASONS", "2", 1);  // applications clocks alone: a setting
    EXPECT_FALSE(monitor.read().throttled);
    ::unsetenv("FAKE_NVML_CLOCK_EVENT_REASONS");

    auto elsewhere = ClockMonitor::open("0000:99:00.0", KP_FAKE_NVML);
    EXPECT_FALSE(elsewhere.available());
    EXPECT_NE(elsewhere.why_unavailable().find("0000:99:00.0"), std::string::npos) << elsewhere.why_unavailable();
    EXPECT_EQ(elsewhere.read().sm_clock_mhz, 0u);
    auto no_nvml = ClockMonitor::open("0000:3B:00.0", "/nonexistent/libnvidia-ml.so.1");
    EXPECT_FALSE(no_nvml.available());
    EXPECT_EQ(no_nvml.why_unavailable().rfind("no GPU:", 0), 0u) << no_nvml.why_unavailable();
}

// On a GPU: NVML finds the device CUDA calls 0 by its PCI bus id, and reads a plausible SM clock.
TEST(ClockMonitor, FindsThisGpuByItsPciBusId) {
    auto driver = CudaDriver::load();
    if (!driver) GTEST_SKIP() << driver.error().message;
    auto info = driver->device_info(0);
    ASSERT_TRUE(info) << info.error().message;
    ASSERT_FALSE(info->pci_bus_id.empty());
    auto monitor = ClockMonitor::open(info->pci_bus_id);
    ASSERT_TRUE(monitor.available()) << info->pci_bus_id << ": " << monitor.why_unavailable();
    EXPECT_FALSE(monitor.driver_version().empty());
    auto reading = monitor.read();
    EXPECT_GT(reading.sm_clock_mhz, 100u);
    EXPECT_LT(reading.sm_clock_mhz, 4000u);
}

// Libraries that must outlive their users (CUPTI's, a candidate's) stay mapped; a library already
// in the process is found without loading it again.
TEST(DynamicLibrary, ProcessLifetimeAndAlreadyLoaded) {
    {
        auto kept = DynamicLibrary::open({KP_FAKE_NVML}, DynamicLibrary::Lifetime::process);
        ASSERT_TRUE(kept) << kept.error().message;
    }
    auto loaded = DynamicLibrary::find_loaded(KP_FAKE_NVML);
    ASSERT_TRUE(loaded) << loaded.error().message;
    EXPECT_NE(loaded->symbol("nvmlInit_v2"), nullptr);
    EXPECT_FALSE(DynamicLibrary::find_loaded("/nonexistent/libnothing.so"));
}
