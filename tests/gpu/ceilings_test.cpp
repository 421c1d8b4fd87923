#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "gpu/ceilings.h"
#include "gpu/ceilings_cache.h"
#include "gpu/datasheets.h"
#include "common/files.h"

using namespace kp::gpu;

TEST(Ceilings, DatasheetFallbackIsLabelled) {
    DeviceCeilings c = no_gpu_ceilings("no GPU: libcuda.so.1 not found");
    EXPECT_EQ(c.source, "datasheet");
    EXPECT_NE(c.label.find("datasheet"), std::string::npos);
    EXPECT_NE(c.label.find("no GPU"), std::string::npos);
    EXPECT_EQ(c.device.name, "NVIDIA H200");
    EXPECT_EQ(c.device.sm_count, 132);
    EXPECT_DOUBLE_EQ(*c.value("dram_copy"), 4.8e12);
    EXPECT_NEAR(*c.value("fp32_fma"), 66.9e12, 0.01e12);
    EXPECT_TRUE(c.value("tensor_bf16").has_value());
    EXPECT_FALSE(c.value("no_such").has_value());
}

// One table per supported GPU, found by the name CUDA reports; each rate is dense and says where
// it comes from. The H200 has one BF16 figure (989 TFLOP/s stated at 1.83 GHz), whatever shows it.
TEST(Datasheets, OneTablePerSupportedGpu) {
    struct Expected {
        const char* name;
        double dram, fp32, bf16;
    };
    for (const Expected& e : {Expected{"NVIDIA H200", 4.8e12, 66.9e12, 989.4e12}, Expected{"NVIDIA H100 80GB HBM3", 3.35e12, 66.9e12, 989.4e12},
                              Expected{"NVIDIA A100-SXM4-80GB", 2.039e12, 19.5e12, 312e12}, Expected{"NVIDIA L40S", 864e9, 91.6e12, 362.05e12},
                              Expected{"NVIDIA B200", 8e12, 80e12, 2.25e15}}) {
        DeviceInfo device;
        device.name = e.name;
        auto c = datasheet_ceilings(device);
        ASSERT_TRUE(c) << e.name;
        EXPECT_EQ(c->source, "datasheet") << e.name;
        EXPECT_EQ(c->device.name, e.name);
        EXPECT_NEAR(*c->value("dram_copy"), e.dram, e.dram * 1e-3) << e.name;
        EXPECT_NEAR(*c->value("fp32_fma"), e.fp32, e.fp32 * 1e-3) << e.name;
        EXPECT_NEAR(*c->value("tensor_bf16"), e.bf16, e.bf16 * 1e-3) << e.name;
        for (const auto& rate : c->ceilings) EXPECT_NE(rate.method.find("NVIDIA"), std::string::npos) << e.name << " " << rate.name;
        const auto names = datasheet_gpu_names();
        EXPECT_NE(std::find(names.begin(), names.end(), e.name), names.end());
    }
    DeviceInfo unknown;
    unknown.name = "NVIDIA H200 NVL";  // another power class, other rates: no table, rather than the SXM's
    EXPECT_FALSE(datasheet_ceilings(unknown));
}

TEST(Ceilings, FlopCeilingOfATaskPrecision) {
    auto c = no_gpu_ceilings("test");
    EXPECT_NEAR(flops_ceiling(c, flop_precision_of_task("f32")), 66.9e12, 0.01e12);
    EXPECT_NEAR(flops_ceiling(c, flop_precision_of_task("bf16")), 1070.5e12, 0.1e12);  // at the 1.98 GHz reference clock
    EXPECT_NEAR(flops_ceiling(c, flop_precision_of_task("f64")), 66.9e12, 0.01e12);   // DMMA, faster than DFMA
    EXPECT_NEAR(flops_ceiling(c, flop_precision_of_task("tf32")), 535.3e12, 0.1e12);
    DeviceCeilings empty;
    EXPECT_EQ(flops_ceiling(empty, FlopPrecision::fp32), 0.0);
    EXPECT_FALSE(empty.known());
}

// Measured ceilings put every SM-clock rate at the FP32 measurement's clock: cuBLAS bf16 reached
// 807 TFLOP/s at ~1.6 GHz on the H200, ~999 at 1.98 GHz; a rate without a clock is taken as is.
// The rates the helper does not measure come from the GPU's datasheet, labelled as not measured.
TEST(Ceilings, MeasuredRatesShareTheReferenceClockAndTheDatasheetFillsTheRest) {
    DeviceCeilings measured;
    measured.source = "measured";
    measured.device = h200_reference_device();
    auto add = [&](const char* name, double value, std::optional<double> clock_mhz) {
        Ceiling c;
        c.name = name;
        c.value = value;
        c.unit = ceiling_unit(name);
        c.sm_clock_mhz_mean = clock_mhz;
        measured.ceilings.push_back(c);
    };
    add("dram_copy", 4.3e12, 1755.0);
    add("fp32_fma", 65.1e12, 1980.0);
    add("tensor_bf16", 807e12, 1600.0);
    add("fp64_fma", 33.3e12, std::nullopt);
    EXPECT_DOUBLE_EQ(measured.reference_clock_hz(), 1980e6);
    EXPECT_DOUBLE_EQ(measured.at_reference_clock("fp32_fma"), 65.1e12);
    EXPECT_NEAR(measured.at_reference_clock("tensor_bf16"), 807e12 * 1980.0 / 1600.0, 1e6);
    EXPECT_DOUBLE_EQ(measured.at_reference_clock("fp64_fma"), 33.3e12);
    EXPECT_DOUBLE_EQ(measured.at_reference_clock("dram_copy"), 4.3e12);  // DRAM has its own clock
    EXPECT_EQ(measured.at_reference_clock("tensor_tf32"), 0.0);

    auto complete = complete_with_datasheet(measured);
    EXPECT_EQ(complete.source, "measured");
    EXPECT_DOUBLE_EQ(*complete.value("dram_copy"), 4.3e12);  // the measurement stays
    ASSERT_TRUE(complete.value("tensor_tf32"));
    EXPECT_NE(complete.find("tensor_tf32")->method.find("not measured"), std::string::npos);
    measured.device.name = "NVIDIA Future GPU";
    EXPECT_FALSE(complete_with_datasheet(measured).value("tensor_tf32"));  // no datasheet: nothing borrowed
}

// The choice every user of the device model makes: measured when cached, else the datasheet,
// else none with the reason.
TEST(Ceilings, ChoiceIsMeasuredThenDatasheetThenNone) {
    auto root = kp::make_temp_directory("kp-ceilings-choice-");
    ASSERT_TRUE(root);
    DeviceInfo h200 = h200_reference_device();
    auto datasheet = ceilings_for_gpu(*root, h200, "580.1");
    ASSERT_TRUE(datasheet.ceilings);
    EXPECT_EQ(datasheet.ceilings->source, "datasheet");
    EXPECT_EQ(datasheet.source.rfind("datasheet", 0), 0u) << datasheet.source;
    // The reason names the datasheet (its label), not an empty "datasheet (; ...)".
    EXPECT_NE(datasheet.source.find("datasheet (" + datasheet.ceilings->label + ";"), std::string::npos) << datasheet.source;
    EXPECT_FALSE(datasheet.ceilings->label.empty());

    DeviceCeilings measured;
    measured.source = "measured";
    measured.device = h200;
    Ceiling dram;
    dram.name = "dram_copy";
    dram.value = 4.3e12;
    dram.unit = "byte/s";
    measured.ceilings = {dram};
    ASSERT_TRUE(kp::write_file_atomically(ceilings_cache_path(*root, h200.name, "580.1"), nlohmann::json(measured).dump()));
    auto cached = ceilings_for_gpu(*root, h200, "580.1");
    ASSERT_TRUE(cached.ceilings);
    EXPECT_EQ(cached.source.rfind("measured (", 0), 0u) << cached.source;
    EXPECT_DOUBLE_EQ(*cached.ceilings->value("dram_copy"), 4.3e12);
    EXPECT_TRUE(cached.ceilings->value("fp32_fma"));  // from the datasheet
    EXPECT_FALSE(ceilings_for_gpu(*root, h200, "580.2").source.starts_with("measured")) << "another driver, another cache file";

    DeviceInfo unknown;
    unknown.name = "NVIDIA Future GPU";
    auto none = ceilings_for_gpu(*root, unknown, "580.1");
    EXPECT_FALSE(none.ceilings);
    EXPECT_NE(none.source.find("no datasheet for NVIDIA Future GPU"), std::string::npos) << none.source;
    std::filesystem::remove_all(*root);
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
    DeviceCeilings c = no_gpu_ceilings("test");
    ASSERT_TRUE(kp::write_file_atomically(*dir / "c.json", nlohmann::json(c).dump()));
    auto back = read_ceilings_file(*dir / "c.json");
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(back->ceilings.size(), c.ceilings.size());
    EXPECT_FALSE(read_ceilings_file(*dir / "missing.json"));
    ASSERT_TRUE(kp::write_file_atomically(*dir / "bad.json", "not json"));
    EXPECT_FALSE(read_ceilings_file(*dir / "bad.json"));
    std::filesystem::remove_all(*dir);
}
