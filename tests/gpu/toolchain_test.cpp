#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "common/files.h"
#include "fixture_path.h"
#include "gpu/toolchain.h"

using namespace kp::gpu;

TEST(Toolchain, ParsesNvccVersion) {
    auto text = kp::read_text_file(gpu_fixture("nvcc_version.txt"));
    ASSERT_TRUE(text.ok());
    EXPECT_EQ(parse_tool_version(*text), "13.0.88");
}

TEST(Toolchain, ParsesNsightStyleVersions) {
    // ncu and compute-sanitizer print "Version <year>.<n>...", as recorded on the H200.
    EXPECT_EQ(parse_tool_version("NVIDIA (R) Nsight Compute Command Line Profiler\n"
                                 "Copyright (c) 2018-2025 NVIDIA Corporation\n"
                                 "Version 2025.3.1.0 (build 36398880) (public-release)\n"),
              "2025.3.1.0");
    EXPECT_EQ(parse_tool_version("Cuda compilation tools, release 12.8"), "12.8");
    EXPECT_EQ(parse_tool_version("no numbers here"), "");
}

TEST(Toolchain, ProbesAToolByPathAndRunsVersion) {
    auto dir = kp::make_temp_directory("kp-toolchain-test");
    ASSERT_TRUE(dir.ok());
    auto script = *dir / "fake-nvcc";
    {
        std::ofstream out(script);
        out << "#!/bin/sh\necho 'Cuda compilation tools, release 13.0, V13.0.88'\n";
    }
    ::chmod(script.c_str(), 0755);
    ToolStatus status = probe_tool(script.string(), "testing");
    EXPECT_TRUE(status.found);
    EXPECT_EQ(status.version, "13.0.88");
    EXPECT_EQ(status.path, script.string());
    std::filesystem::remove_all(*dir);
}

TEST(Toolchain, MissingToolIsReportedNotThrown) {
    ToolStatus status = probe_tool("kp-no-such-tool-anywhere", "nothing");
    EXPECT_FALSE(status.found);
    EXPECT_FALSE(status.detail.empty());
}

TEST(Toolchain, FullProbeListsEveryTool) {
    auto tools = probe_toolchain();
    std::vector<std::string> names;
    for (const auto& t : tools) names.push_back(t.name);
    EXPECT_EQ(names, (std::vector<std::string>{"nvcc", "ncu", "nvdisasm", "cuobjdump", "compute-sanitizer", "cupti", "nvml"}));
    for (const auto& t : tools)
        if (!t.found) {
            EXPECT_FALSE(t.detail.empty()) << t.name;
        }
}
