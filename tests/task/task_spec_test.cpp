#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "../source_tree.h"
#include "common/files.h"
#include "task/task_spec.h"

using namespace kp;
namespace fs = std::filesystem;

namespace {
// A scratch task folder holding task.toml (and an empty reference.cu).
fs::path write_task(const std::string& toml) {
    auto dir = make_temp_directory("kp-task-test").value();
    std::ofstream(dir / "task.toml") << toml;
    std::ofstream(dir / "reference.cu") << "// reference\n";
    return dir;
}

const char* kValid = R"(name = "softmax"
description = "row softmax"
[[input]]
name = "x"
dtype = "f32"
shape = [1024, 512]
distribution = { kind = "normal", mean = 0.0, std = 2.0 }
[[output]]
name = "y"
dtype = "f32"
shape = [1024, 512]
[cost]
flops = 2621440
[reference]
source = "reference.cu"
)";
}  // namespace

TEST(TaskSpec, ParsesAValidTask) {
    auto task = load_task(write_task(kValid));
    ASSERT_TRUE(task.ok()) << task.error().message;
    EXPECT_EQ(task->name, "softmax");
    ASSERT_EQ(task->inputs.size(), 1u);
    EXPECT_EQ(task->inputs[0].dtype, DType::F32);
    EXPECT_EQ(task->inputs[0].stride, (std::vector<int64_t>{512, 1}));
    EXPECT_EQ(task->inputs[0].distribution.kind, DistributionKind::Normal);
    EXPECT_DOUBLE_EQ(task->inputs[0].distribution.b, 2.0);
    // bytes = auto: input read once + output written once
    EXPECT_DOUBLE_EQ(task->cost.bytes, 2.0 * 1024 * 512 * 4);
    auto tol = task->tolerance_for(task->outputs[0]);
    EXPECT_DOUBLE_EQ(tol.atol, 1e-4);
    EXPECT_DOUBLE_EQ(tol.rtol, 1e-4);
}

TEST(TaskSpec, DefaultTolerancesFollowDtype) {
    std::string toml = kValid;
    toml.replace(toml.find("dtype = \"f32\"\nshape = [1024, 512]\n[cost]"), 13, "dtype = \"bf16\"");
    auto task = load_task(write_task(toml));
    ASSERT_TRUE(task.ok()) << task.error().message;
    EXPECT_DOUBLE_EQ(task->tolerance_for(task->outputs[0]).atol, 1e-2);
}

TEST(TaskSpec, ReportsEveryProblemWithItsLine) {
    auto dir = write_task(R"(name = "bad task!"
[[input]]
name = "x"
dtype = "f33"
shape = [0, 4]
[[output]]
name = "x"
dtype = "f32"
shape = [4]
colour = "red"
[cost]
flops = -1
[reference]
source = "missing.cu"
)");
    auto task = load_task(dir);
    ASSERT_FALSE(task.ok());
    const std::string& m = task.error().message;
    EXPECT_NE(m.find("task.toml:1: name:"), std::string::npos) << m;
    EXPECT_NE(m.find("task.toml:4: input[0].dtype: unknown dtype 'f33'"), std::string::npos) << m;
    EXPECT_NE(m.find("input[0].shape: dimensions must be positive"), std::string::npos) << m;
    EXPECT_NE(m.find("task.toml:10: output[0].colour: unknown field"), std::string::npos) << m;
    EXPECT_NE(m.find("cost.flops: must be >= 0"), std::string::npos) << m;
    EXPECT_NE(m.find("reference.source: no such file"), std::string::npos) << m;
}

TEST(TaskSpec, SyntaxErrorNamesTheLine) {
    auto task = load_task(write_task("name = \"x\"\n[[input]\n"));
    ASSERT_FALSE(task.ok());
    EXPECT_NE(task.error().message.find("task.toml:2: syntax"), std::string::npos) << task.error().message;
}

TEST(TaskSpec, DuplicateNamesAndReferenceChoiceAreChecked) {
    std::string toml = kValid;
    toml.replace(toml.find("name = \"y\""), 10, "name = \"x\"");
    toml += "data = \"data\"\n";
    auto task = load_task(write_task(toml));
    ASSERT_FALSE(task.ok());
    EXPECT_NE(task.error().message.find("'x' is used twice"), std::string::npos) << task.error().message;
    EXPECT_NE(task.error().message.find("exactly one of source"), std::string::npos) << task.error().message;
}

TEST(TaskSpec, UnknownLibraryAndMissingFile) {
    std::string toml = kValid;
    toml += "[build]\nlibraries = [\"cudnn\"]\n";
    auto task = load_task(write_task(toml));
    ASSERT_FALSE(task.ok());
    EXPECT_NE(task.error().message.find("build.libraries: unknown library"), std::string::npos);
    EXPECT_FALSE(load_task("/nonexistent/kp-task").ok());
}

TEST(TaskSpec, CutlassAndTheCompileTimeLimit) {
    std::string toml = std::string(kValid) + "[build]\nlibraries = [\"cutlass\", \"cublas\"]\ncompile_timeout_s = 240\n";
    auto task = load_task(write_task(toml));
    ASSERT_TRUE(task.ok()) << task.error().message;
    EXPECT_TRUE(task->allows_library("cutlass"));
    EXPECT_FALSE(task->allows_library("curand"));
    EXPECT_EQ(task->compile_timeout_seconds, 240);
    EXPECT_EQ(to_json(*task)["compile_timeout_s"], 240);
    EXPECT_FALSE(load_task(write_task(kValid))->compile_timeout_seconds.has_value());
    for (const char* bad : {"0", "2.5", "-3", "\"long\"", "99999"}) {
        auto refused = load_task(write_task(std::string(kValid) + "[build]\ncompile_timeout_s = " + bad + "\n"));
        ASSERT_FALSE(refused.ok()) << bad;
        EXPECT_NE(refused.error().message.find("build.compile_timeout_s"), std::string::npos) << refused.error().message;
    }
    auto unknown = load_task(write_task(std::string(kValid) + "[build]\nlibraries = [\"cute\"]\n"));
    ASSERT_FALSE(unknown.ok());
    EXPECT_NE(unknown.error().message.find("allowed: cublas, cublasLt, curand, cutlass"), std::string::npos) << unknown.error().message;
}

TEST(TaskSpec, StridedStorage) {
    TensorSpec t;
    t.shape = {4, 3};
    t.stride = {1, 4};  // column-major
    EXPECT_EQ(t.storage_elements(), 12);
    EXPECT_FALSE(t.is_contiguous());
    t.stride = {3, 1};
    EXPECT_TRUE(t.is_contiguous());
}

TEST(TaskSpec, ExampleTasksInTheRepositoryAreValid) {
    // The example tasks and the autoprofiler's tuning corpus.
    for (const char* folder : {"tasks", "tests/tuning_corpus"}) {
        int count = 0;
        for (const auto& entry : fs::directory_iterator(kp::testing::source_path(folder))) {
            if (!fs::exists(entry.path() / "task.toml")) continue;
            auto task = load_task(entry.path());
            EXPECT_TRUE(task.ok()) << entry.path() << ": " << (task.ok() ? "" : task.error().message);
            ++count;
        }
        EXPECT_GE(count, 1) << folder;
    }
}
