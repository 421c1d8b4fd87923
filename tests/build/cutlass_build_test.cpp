// CUTLASS/CuTe candidates without a GPU: where the headers are found, the arch they need, and a
// real build of a small CuTe kernel (tests/adversarial/ok_cute_cluster_rowsum.cu) for sm_90a with
// the static guard, plus the launch-gate bypass the guard must catch. Real nvcc and the installed
// nvidia-cutlass headers; skipped, with the reason, where either is missing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>

#include "../source_tree.h"
#include "build/candidate_builder.h"
#include "build/cutlass_install.h"
#include "common/files.h"
#include "common/process.h"
#include "search/proposers/parameter_space.h"
#include "task/task_spec.h"

using namespace kp;
namespace fs = std::filesystem;

namespace {

const char* kVersionHeader = "#define CUTLASS_MAJOR 4\n#define CUTLASS_MINOR 2\n#define CUTLASS_PATCH 0 \n#define CUTLASS_BUILD 0\n";

// A fake install: include/cutlass/version.h and include/cute/tensor.hpp under `root`.
void write_fake_install(const fs::path& root, const std::string& version_header = kVersionHeader) {
    fs::create_directories(root / "include" / "cutlass");
    fs::create_directories(root / "include" / "cute");
    std::ofstream(root / "include" / "cutlass" / "version.h") << version_header;
    std::ofstream(root / "include" / "cute" / "tensor.hpp") << "#pragma once\n";
}

// Sets an environment variable for one test, and puts the old value back.
class ScopedVariable {
public:
    ScopedVariable(const char* name, const std::string& value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        ::setenv(name, value.c_str(), 1);
    }
    ~ScopedVariable() {
        if (old_) ::setenv(name_, old_->c_str(), 1);
        else ::unsetenv(name_);
    }

private:
    const char* name_;
    std::optional<std::string> old_;
};

}  // namespace

TEST(CutlassInstall, VersionComesFromVersionHeader) {
    EXPECT_EQ(parse_cutlass_version(kVersionHeader).value(), "4.2.0");
    EXPECT_EQ(parse_cutlass_version("#define CUTLASS_MAJOR 3\n#define CUTLASS_MINOR 9\n#define CUTLASS_PATCH 12\n").value(), "3.9.12");
    auto broken = parse_cutlass_version("#define CUTLASS_MAJOR 4\n");
    ASSERT_FALSE(broken.ok());
    EXPECT_NE(broken.error().message.find("CUTLASS_MINOR"), std::string::npos);
}

TEST(CutlassInstall, FindsBothLayoutsAndNamesWhatIsWrong) {
    auto dir = make_temp_directory("kp-cutlass-").value();
    write_fake_install(dir / "checkout");
    auto checkout = cutlass_install_at(dir / "checkout");
    ASSERT_TRUE(checkout.ok()) << checkout.error().message;
    EXPECT_EQ(checkout->version, "4.2.0");
    EXPECT_EQ(checkout->include_directories(), std::vector<fs::path>{dir / "checkout" / "include"});
    // The wheel's layout: site-packages/cutlass_library/source/{include, tools/util/include}.
    write_fake_install(dir / "cutlass_library" / "source");
    fs::create_directories(dir / "cutlass_library" / "source" / "tools" / "util" / "include");
    auto wheel = cutlass_install_at(dir / "cutlass_library");
    ASSERT_TRUE(wheel.ok()) << wheel.error().message;
    EXPECT_EQ(wheel->root, dir / "cutlass_library" / "source");
    EXPECT_EQ(wheel->include_directories().size(), 2u);
    auto flags = cutlass_nvcc_flags(*wheel);
    for (const char* expected : {"--expt-relaxed-constexpr", "-DCUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL=1", "-lcuda"})
        EXPECT_NE(std::find(flags.begin(), flags.end(), expected), flags.end()) << expected;

    EXPECT_NE(cutlass_install_at(dir / "nothing").error().message.find("holds no include/cutlass/version.h"), std::string::npos);
    fs::create_directories(dir / "no_cute" / "include" / "cutlass");
    std::ofstream(dir / "no_cute" / "include" / "cutlass" / "version.h") << kVersionHeader;
    EXPECT_NE(cutlass_install_at(dir / "no_cute").error().message.find("without CuTe"), std::string::npos);
}

TEST(CutlassInstall, TheVariableWinsAndABadOneIsAnError) {
    auto dir = make_temp_directory("kp-cutlass-").value();
    write_fake_install(dir / "mine", "#define CUTLASS_MAJOR 9\n#define CUTLASS_MINOR 8\n#define CUTLASS_PATCH 7\n");
    {
        ScopedVariable variable("KERNELPRO_CUTLASS_DIR", (dir / "mine").string());
        auto found = locate_cutlass();
        ASSERT_TRUE(found.ok()) << found.error().message;
        EXPECT_EQ(found->version, "9.8.7");
        EXPECT_EQ(found->found_by, "KERNELPRO_CUTLASS_DIR");
        // An explicit folder comes before the variable.
        write_fake_install(dir / "explicit");
        EXPECT_EQ(locate_cutlass(dir / "explicit")->version, "4.2.0");
    }
    ScopedVariable typo("KERNELPRO_CUTLASS_DIR", (dir / "typo").string());
    auto missing = locate_cutlass();
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().message.rfind("KERNELPRO_CUTLASS_DIR: ", 0), 0u) << missing.error().message;
}

TEST(CutlassInstall, HopperAndLaterGetTheirArchSpecificTarget) {
    auto named = [](const char* name) {
        GpuArch arch;
        arch.name = name;
        return arch_specific(arch).name;
    };
    EXPECT_EQ(named("sm_90"), "sm_90a");
    EXPECT_EQ(named("sm_90a"), "sm_90a");
    EXPECT_EQ(named("sm_100"), "sm_100a");
    EXPECT_EQ(named("sm_89"), "sm_89");
    EXPECT_EQ(named("sm_80"), "sm_80");
}

namespace {

class CutlassBuildTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (!find_executable("nvcc")) GTEST_SKIP() << "nvcc not found: the CUDA toolkit is needed to compile candidates";
        auto install = locate_cutlass();
        if (!install.ok()) GTEST_SKIP() << install.error().message;
        auto task = load_task(kp::testing::source_path("tests/adversarial/task_cutlass"));
        ASSERT_TRUE(task.ok()) << task.error().message;
        task_ = *task;
        dir_ = make_temp_directory("kp-cutlass-build").value();
        BuilderOptions options;
        options.cache_directory = dir_ / "cache";
        options.arch.name = "sm_90";  // the builder must make it sm_90a for a CUTLASS task
        builder_ = std::make_unique<CandidateBuilder>(options);
    }
    void TearDown() override {
        std::error_code ec;
        if (!dir_.empty()) fs::remove_all(dir_, ec);
    }
    BuildOutcome build(const std::string& adversarial_file) {
        auto built = builder_->build(task_build_request(task_, kp::testing::source_path("tests/adversarial") / adversarial_file));
        EXPECT_TRUE(built.ok()) << built.error().message;
        return built.ok() ? *built : BuildOutcome{};
    }
    static bool imports(const BuildOutcome& b, const std::string& name) {
        for (const auto& s : b.guard.undefined_symbols)
            if (s == name || s.rfind(name + "@", 0) == 0) return true;
        return false;
    }
    TaskSpec task_;
    fs::path dir_;
    std::unique_ptr<CandidateBuilder> builder_;
};

}  // namespace

// The CI proof that a CuTe candidate builds: one small kernel (CuTe layouts, CUTLASS's
// ClusterLauncher), about 10-15 s of nvcc on a 2-core machine.
TEST_F(CutlassBuildTest, ACuteCandidateCompilesForSm90aAndPassesTheGuard) {
    auto built = build("ok_cute_cluster_rowsum.cu");
    std::printf("[cutlass] ok_cute_cluster_rowsum.cu: %s for %s in %.1f s\n", build_status_name(built.status), built.arch.c_str(),
                built.compile_seconds);
    ASSERT_TRUE(built.ok()) << built.message << built.full_log.substr(0, 4000);
    EXPECT_EQ(built.arch, "sm_90a");
    EXPECT_NE(built.command_line.find("--expt-relaxed-constexpr"), std::string::npos);
    EXPECT_NE(built.command_line.find("-std=c++17"), std::string::npos);
    // Its cluster launch goes through the gate, never to the runtime directly.
    EXPECT_TRUE(imports(built, "__wrap_cudaLaunchKernelExC"));
    EXPECT_FALSE(imports(built, "cudaLaunchKernelExC"));
    EXPECT_EQ(built.launch_gate.filename(), kLaunchGateLibrary);
    auto needed = run_process({"readelf", "-d", built.library.string()});
    ASSERT_TRUE(needed.ok());
    EXPECT_NE(needed->stdout_text.find("[libkp_launch_gate.so]"), std::string::npos) << needed->stdout_text;
}

// Every candidate shipped in a task that allows CUTLASS builds for sm_90a and passes the guard, as
// the GPU's evaluator would build it (a candidate linked from a sibling task is built once). The
// collective builders' host code brings in what no small CuTe kernel does (__udivti3 in the tile
// scheduler). Several minutes of nvcc on a 2-core machine.
TEST_F(CutlassBuildTest, TheShippedCutlassCandidatesBuildAndPassTheGuard) {
    BuilderOptions options;
    options.cache_directory = fs::path(KP_TEST_CACHE_DIR) / "build";  // shared with the CuTe writer test
    options.arch.name = "sm_90";
    builder_ = std::make_unique<CandidateBuilder>(options);
    std::set<fs::path> seen;
    int built_count = 0;
    for (const auto& dir : fs::directory_iterator(kp::testing::source_path("tasks"))) {
        if (!fs::exists(dir.path() / "task.toml")) continue;
        auto task = load_task(dir.path());
        ASSERT_TRUE(task.ok()) << task.error().message;
        if (std::find(task->libraries.begin(), task->libraries.end(), "cutlass") == task->libraries.end()) continue;
        for (const auto& c : fs::directory_iterator(dir.path() / "candidates")) {
            if (c.path().extension() != ".cu" || !seen.insert(fs::canonical(c.path())).second) continue;
            // At the point a search starts from (its tunables' defaults as -D values).
            auto source = read_text_file(c.path());
            ASSERT_TRUE(source.ok()) << source.error().message;
            auto space = parse_tunables(*source);
            ASSERT_TRUE(space.ok()) << c.path() << ": " << space.error().message;
            auto built = builder_->build(task_build_request(*task, c.path(), kp::search::resolve_point(*source, *space, {})));
            ASSERT_TRUE(built.ok()) << c.path() << ": " << built.error().message;
            std::printf("[cutlass] %s/%s: %s for %s in %.1f s\n", task->name.c_str(), c.path().filename().c_str(),
                        build_status_name(built->status), built->arch.c_str(), built->compile_seconds);
            EXPECT_TRUE(built->ok()) << c.path() << ": " << built->message;
            ++built_count;
        }
    }
    EXPECT_GE(built_count, 3);  // gemm_bf16's cutlass_ws and fast, the MoE task's two
}

// Attributes are the gate's business at run time; reaching the runtime around it is the guard's.
TEST_F(CutlassBuildTest, AttributeLaunchesPassTheGuardButTheWayAroundTheGateDoesNot) {
    auto attribute_launch = build("persisting_l2_launch_attr.cu");
    EXPECT_TRUE(attribute_launch.ok()) << attribute_launch.message;
    auto around = build("cutlass_real_launch.cu");
    EXPECT_EQ(around.status, BuildStatus::RejectedByGuard);
    EXPECT_NE(around.message.find("cudaLaunchKernelExC: launches with attributes"), std::string::npos) << around.message;
}
