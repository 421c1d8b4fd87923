// The task.toml sections an import writes: a PyTorch reference, fixed-value inputs (a module's
// parameters and buffers), scalars (0-dim), state_dict names with dots, flags and the origin, and
// the writer that turns a TaskSpec back into task.toml.
#include <gtest/gtest.h>

#include <fstream>

#include "common/files.h"
#include "task/safetensors.h"
#include "task/task_spec.h"
#include "task/task_toml_writer.h"

using namespace kp;
namespace fs = std::filesystem;

namespace {

const char* kImported = R"(name = "kb_l1_033_BatchNorm"
description = "BatchNorm in training mode"
flags = ["degenerate"]

[[input]]
name = "x"
dtype = "f32"
shape = [8, 4]
distribution = { kind = "uniform", low = 0.0, high = 1.0 }

[[input]]
name = "bn.weight"
dtype = "f32"
shape = [4]
distribution = { kind = "fixed", file = "parameters.safetensors" }

[[input]]
name = "bn.num_batches_tracked"
dtype = "i64"
shape = []
distribution = { kind = "fixed", file = "parameters.safetensors" }

[[output]]
name = "output"
dtype = "f32"
shape = [8, 4]
atol = 1e-4
rtol = 1e-4

[cost]
flops = 96
precision = "tf32"

[reference]
pytorch = "problem.py"
forward_inputs = 1
dtype = "f32"
tf32 = false
seed = 42
constants = [{ name = "eps", position = 1, value = 0.5 }]

[origin]
benchmark = "KernelBench"
level = 1
problem = 33
file = "33_BatchNorm.py"
notes = ["a note"]
)";

fs::path write_imported(const std::string& toml) {
    auto dir = make_temp_directory("kp-imported-task").value();
    std::ofstream(dir / "task.toml") << toml;
    std::ofstream(dir / "problem.py") << "# a problem\n";
    TensorSet values;
    values["bn.weight"] = {DType::F32, {4}, std::vector<uint8_t>(16, 0)};
    values["bn.num_batches_tracked"] = {DType::I64, {}, std::vector<uint8_t>(8, 0)};
    EXPECT_TRUE(write_safetensors(dir / "parameters.safetensors", values).ok());
    return dir;
}

}  // namespace

TEST(ImportedTask, LoadsEverySection) {
    auto dir = write_imported(kImported);
    auto task = load_task(dir);
    ASSERT_TRUE(task.ok()) << task.error().message;
    ASSERT_EQ(task->inputs.size(), 3u);
    EXPECT_EQ(task->inputs[1].name, "bn.weight");
    EXPECT_EQ(task->inputs[1].distribution.kind, DistributionKind::Fixed);
    EXPECT_EQ(task->inputs[1].distribution.file, fs::absolute(dir / "parameters.safetensors"));
    EXPECT_TRUE(task->inputs[2].shape.empty());
    EXPECT_EQ(task->inputs[2].element_count(), 1);
    EXPECT_EQ(task->inputs[2].storage_bytes(), 8);
    ASSERT_TRUE(task->reference.pytorch);
    EXPECT_EQ(task->reference.pytorch->forward_inputs, 1);
    EXPECT_EQ(task->reference.pytorch->seed, 42);
    EXPECT_FALSE(task->reference.pytorch->tf32);
    ASSERT_EQ(task->reference.pytorch->constants.size(), 1u);
    EXPECT_EQ(task->reference.pytorch->constants[0].position, 1);
    EXPECT_DOUBLE_EQ(task->reference.pytorch->constants[0].value.get<double>(), 0.5);
    EXPECT_TRUE(task->has_flag("degenerate"));
    ASSERT_TRUE(task->origin);
    EXPECT_EQ(task->origin->problem, 33);
    EXPECT_EQ(task->origin->notes, std::vector<std::string>{"a note"});
    auto j = to_json(*task);
    EXPECT_EQ(j["reference"]["pytorch"], fs::absolute(dir / "problem.py").string());
    EXPECT_EQ(j["inputs"][1]["distribution"]["kind"], "fixed");
    EXPECT_EQ(j["flags"][0], "degenerate");
}

TEST(ImportedTask, WriterOutputLoadsBackTheSame) {
    auto dir = write_imported(kImported);
    auto task = load_task(dir);
    ASSERT_TRUE(task.ok()) << task.error().message;
    std::string text = task_to_toml(*task);
    ASSERT_TRUE(write_file_atomically(dir / "task.toml", text).ok());
    auto again = load_task(dir);
    ASSERT_TRUE(again.ok()) << again.error().message << "\n" << text;
    EXPECT_EQ(to_json(*again), to_json(*task)) << text;
}

TEST(ImportedTask, BadSectionsAreReported) {
    std::string toml = kImported;
    toml.replace(toml.find("flags = [\"degenerate\"]"), 22, "flags = [\"fast\"]");
    toml.replace(toml.find("forward_inputs = 1"), 18, "forward_inputs = 9");
    toml.replace(toml.find("file = \"parameters.safetensors\""), 31, "file = \"missing.safetensors\"");
    toml.replace(toml.find("pytorch = \"problem.py\""), 22, "pytorch = \"problem.py\"\nsource = \"problem.py\"");
    auto task = load_task(write_imported(toml));
    ASSERT_FALSE(task.ok());
    const std::string& m = task.error().message;
    EXPECT_NE(m.find("flags: unknown flag"), std::string::npos) << m;
    EXPECT_NE(m.find("input[1].distribution.file: no such file: missing.safetensors"), std::string::npos) << m;
    EXPECT_NE(m.find("exactly one of source"), std::string::npos) << m;
}

TEST(ImportedTask, ForwardInputsBeyondTheInputsAreRejected) {
    std::string toml = kImported;
    toml.replace(toml.find("forward_inputs = 1"), 18, "forward_inputs = 9");
    auto task = load_task(write_imported(toml));
    ASSERT_FALSE(task.ok());
    EXPECT_NE(task.error().message.find("reference.forward_inputs: must be between 0 and the number of inputs"), std::string::npos)
        << task.error().message;
}
