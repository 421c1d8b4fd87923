#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "gpu/ceilings.h"
#include "gpu/ceilings_cache.h"
#include "common/files.h"

using namespace kp::gpu;

TEST(Ceilings, DatasheetFallbackIsLabelled) {
    DeviceCeilings c = h200_datasheet_ceilings("no GPU: libcuda.so.1 not found");
    EXPECT_EQ(c.source, "datasheet");
    EXPECT_NE(c.label.find("datasheet"), std::string::npos);
    EXPECT_NE(c.label.find("no GPU"), std::string::npos);
    EXPECT_DOUBLE_EQ(*c.value("dram_copy"), 4.8e12);
    EXPECT_DOUBLE_EQ(*c.value("fp32_fma"), 66.9e12);
    EXPECT_TRUE(c.value("tensor_bf16").has_value());
    EXPECT_FALSE(c.value("no_such").has_value());
}

TEST(Ceilings, JsonRoundTripKeepsMeasurementsAndSkips) {
    DeviceCeilings c;
    c.source = "measured";
    c.label = "hand-written";
    c.device = h200_reference_device();
    c.driver_version = "580.159.04";
    Ceiling dram;
    dram.name = "dram_copy";
    dram.value = 4.3e12;
    dram.unit = "byte/s";
    dram.repetitions = 300;
    dram.sm_clock_mhz_mean = 1980;
    Ceiling skipped;
    skipped.name = "tensor_fp16";
    skipped.skipped = "cuBLAS not available";
    c.ceilings = {dram, skipped};

    nlohmann::json j = c;
    auto back = parse_ceilings_json(j.dump());
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->device.sm_count, 132);
    EXPECT_EQ(back->driver_version, "580.159.04");
    EXPECT_DOUBLE_EQ(*back->value("dram_copy"), 4.3e12);
    EXPECT_EQ(*back->find("dram_copy")->sm_clock_mhz_mean, 1980);
    EXPECT_FALSE(back->find("dram_copy")->power_watts_mean.has_value());
    EXPECT_FALSE(back->value("tensor_fp16").has_value());  // skipped
    EXPECT_EQ(back->find("tensor_fp16")->skipped, "cuBLAS not available");
}

TEST(Ceilings, RejectsOtherSchemasAndBadJson) {
    EXPECT_FALSE(parse_ceilings_json(R"({"schema": "something.else"})").ok());
    EXPECT_FALSE(parse_ceilings_json("not json").ok());
}

TEST(Ceilings, CachePathIsSafeAndKeyedByNameAndDriver) {
    auto path = ceilings_cache_path("/cache", "NVIDIA H200 / SXM", "580.159.04");
    EXPECT_EQ(path.string(), "/cache/ceilings/NVIDIA_H200___SXM__580.159.04.json");
    EXPECT_NE(ceilings_cache_path("/c", "NVIDIA H200", "580.1"), ceilings_cache_path("/c", "NVIDIA H200", "580.2"));
}

TEST(Ceilings, ReadsAFileAndSaysWhenItCannot) {
    auto dir = kp::make_temp_directory("kp-ceilings-file-");
    ASSERT_TRUE(dir);
    DeviceCeilings c = h200_datasheet_ceilings("test");
    ASSERT_TRUE(kp::write_file_atomically(*dir / "c.json", nlohmann::json(c).dump()));
    auto back = read_ceilings_file(*dir / "c.json");
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(back->ceilings.size(), c.ceilings.size());
    EXPECT_FALSE(read_ceilings_file(*dir / "missing.json"));
    ASSERT_TRUE(kp::write_file_atomically(*dir / "bad.json", "not json"));
    EXPECT_FALSE(read_ceilings_file(*dir / "bad.json"));
    std::filesystem::remove_all(*dir);
}
