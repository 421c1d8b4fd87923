// --gpus: what parses (and the one-line usage errors), and how a selection is matched against the
// driver's devices (the one-line environment errors), on made-up device lists.
#include <gtest/gtest.h>

#include "gpu/gpu_selection.h"

using namespace kp::gpu;

namespace {

std::vector<DeviceInfo> machine(int n) {
    std::vector<DeviceInfo> devices;
    for (int i = 0; i < n; ++i) {
        DeviceInfo d;
        d.ordinal = i;
        d.name = "NVIDIA H200";
        d.uuid = "GPU-" + std::string(8, static_cast<char>('a' + i)) + "-0000-0000-0000-000000000000";
        devices.push_back(d);
    }
    return devices;
}

std::vector<int> indices(const std::vector<SelectedGpu>& chosen) {
    std::vector<int> out;
    for (const auto& c : chosen) out.push_back(c.index);
    return out;
}

std::vector<SelectedGpu> resolved(const std::string& text, int gpus) {
    auto selection = parse_gpu_selection(text);
    EXPECT_TRUE(selection.ok()) << text;
    if (!selection.ok()) return {};
    auto chosen = resolve_gpu_selection(*selection, machine(gpus));
    EXPECT_TRUE(chosen.ok()) << text << ": " << (chosen.ok() ? "" : chosen.error().message);
    return chosen.ok() ? *chosen : std::vector<SelectedGpu>{};
}

std::string environment_error(const std::string& text, int gpus) {
    auto selection = parse_gpu_selection(text);
    if (!selection.ok()) return "parse: " + selection.error().message;
    auto chosen = resolve_gpu_selection(*selection, machine(gpus));
    return chosen.ok() ? "" : chosen.error().message;
}

}  // namespace

TEST(GpuSelection, AllCountsListsAndUuids) {
    EXPECT_EQ(indices(resolved("all", 4)), (std::vector<int>{0, 1, 2, 3}));
    EXPECT_EQ(indices(resolved("ALL", 2)), (std::vector<int>{0, 1}));
    EXPECT_EQ(indices(resolved("2", 4)), (std::vector<int>{0, 1}));
    EXPECT_EQ(indices(resolved("0,2", 4)), (std::vector<int>{0, 2}));
    EXPECT_EQ(indices(resolved("3,1", 4)), (std::vector<int>{3, 1}));  // the order given is the slot order
    EXPECT_EQ(indices(resolved("GPU-cccccccc-0000-0000-0000-000000000000", 4)), (std::vector<int>{2}));
    EXPECT_EQ(indices(resolved("gpu-dddd,0", 4)), (std::vector<int>{3, 0}));  // a unique prefix, any case
}

TEST(GpuSelection, EachWorkerIsPinnedByUuidAndOneGpuMayBeSharedForTesting) {
    auto chosen = resolved("0,0", 1);
    ASSERT_EQ(chosen.size(), 2u);
    EXPECT_EQ(chosen[0].pin, "GPU-aaaaaaaa-0000-0000-0000-000000000000");
    EXPECT_EQ(chosen[1].pin, chosen[0].pin);
    EXPECT_EQ(chosen[0].label(), "GPU 0 (NVIDIA H200, GPU-aaaaaaaa-0000-0000-0000-000000000000)");
    auto devices = machine(1);
    devices[0].uuid.clear();  // a driver without cuDeviceGetUuid: pinned by index
    auto by_index = resolve_gpu_selection(*parse_gpu_selection("1"), devices);
    ASSERT_TRUE(by_index.ok());
    EXPECT_EQ(by_index->front().pin, "0");
}

TEST(GpuSelection, BadValuesAreOneLineUsageErrors) {
    for (const char* bad : {"", "none", "0,", ",1", "-1", "0", "1.5", "0;1", "GPU-xyz", "0,,1", "99999999"}) {
        auto parsed = parse_gpu_selection(bad);
        ASSERT_FALSE(parsed.ok()) << "'" << bad << "' was accepted";
        EXPECT_EQ(parsed.error().message.find('\n'), std::string::npos) << parsed.error().message;
        EXPECT_EQ(parsed.error().message.rfind("--gpus", 0), 0u) << parsed.error().message;
    }
}

TEST(GpuSelection, MoreThanTheMachineHasIsAnEnvironmentError) {
    EXPECT_EQ(environment_error("4", 2), "--gpus 4: this machine has 2 GPUs");
    EXPECT_EQ(environment_error("0,3", 2), "--gpus 0,3: there is no GPU 3 (this machine has 2 GPUs, 0 to 1)");
    EXPECT_NE(environment_error("GPU-ffff", 2).find("no GPU of this machine has the UUID GPU-ffff"), std::string::npos);
    EXPECT_NE(environment_error("all", 0).find("no GPU"), std::string::npos);
    auto twins = machine(2);
    twins[1].uuid = twins[0].uuid.substr(0, 10) + "99-0000-0000-0000-000000000000";
    auto ambiguous = resolve_gpu_selection(*parse_gpu_selection("GPU-aaaa"), twins);
    ASSERT_FALSE(ambiguous.ok());
    EXPECT_NE(ambiguous.error().message.find("more than one GPU's UUID starts with GPU-aaaa"), std::string::npos);
}

TEST(GpuSelection, UuidBytesAreWrittenAsNvidiaSmiWritesThem) {
    const unsigned char bytes[16] = {0x8d, 0x1a, 0x2b, 0x3c, 0x4d, 0x5e, 0x6f, 0x70, 0x81, 0x92, 0xa3, 0xb4, 0xc5, 0xd6, 0xe7, 0xf8};
    EXPECT_EQ(format_gpu_uuid(bytes), "GPU-8d1a2b3c-4d5e-6f70-8192-a3b4c5d6e7f8");
}
