// The ModelNew file `kernelpro kernelbench export` writes: it subclasses the original Model, embeds
// the kernel with the ABI header inlined, passes the parameters by state_dict name in the task's
// order, calls kp_setup only when the kernel has one, and is valid Python (checked by Python's own
// parser). tests/kernelbench/python/test_export_build.py builds one with load_inline.
#include <gtest/gtest.h>

#include <fstream>

#include "common/files.h"
#include "common/process.h"
#include "eval/python_environment.h"
#include "kernelbench/model_new_export.h"
#include "task/safetensors.h"
#include "task/task_spec.h"

using namespace kp;
using namespace kp::kernelbench;
namespace fs = std::filesystem;

namespace {

TaskSpec imported_task() {
    fs::path dir = make_temp_directory("kp-export-test").value();
    std::ofstream(dir / "problem.py") << "import torch\nclass Model(torch.nn.Module):\n    '''x'''\n";
    TensorSet values;
    values["fc.weight"] = {DType::F32, {4, 8}, std::vector<uint8_t>(128, 0)};
    values["fc.bias"] = {DType::F32, {4}, std::vector<uint8_t>(16, 0)};
    EXPECT_TRUE(write_safetensors(dir / "parameters.safetensors", values).ok());
    std::ofstream(dir / "task.toml") << R"(name = "linear"
[[input]]
name = "x"
dtype = "f32"
shape = [2, 8]
[[input]]
name = "fc.weight"
dtype = "f32"
shape = [4, 8]
distribution = { kind = "fixed", file = "parameters.safetensors" }
[[input]]
name = "fc.bias"
dtype = "f32"
shape = [4]
distribution = { kind = "fixed", file = "parameters.safetensors" }
[[output]]
name = "output"
dtype = "f32"
shape = [2, 4]
[cost]
flops = 128
[reference]
pytorch = "problem.py"
forward_inputs = 1
[build]
libraries = ["cublas"]
)";
    auto task = load_task(dir);
    EXPECT_TRUE(task.ok()) << (task.ok() ? "" : task.error().message);
    return task.ok() ? *task : TaskSpec{};
}

const char* kKernel = R"(#include <kernelpro/abi.h>
KP_EXPORT int kp_forward(const kp_tensor* in, int n, kp_tensor* out, int m, cudaStream_t s) { return 0; }
)";

}  // namespace

TEST(Export, ModelNewSubclassesTheModelAndPassesParametersInOrder) {
    TaskSpec task = imported_task();
    auto text = model_new_source({&task, kKernel, "/* abi */\n", "import torch\n"});
    ASSERT_TRUE(text.ok()) << text.error().message;
    EXPECT_NE(text->find("class ModelNew(_problem[\"Model\"]):"), std::string::npos);
    EXPECT_NE(text->find("_PARAMETERS = [\"fc.weight\", \"fc.bias\"]"), std::string::npos) << *text;
    EXPECT_NE(text->find("_ARGUMENTS = [([2,8], torch.float32)]"), std::string::npos) << *text;
    EXPECT_NE(text->find("_OUTPUTS = [([2,4], torch.float32)]"), std::string::npos) << *text;
    EXPECT_NE(text->find("extra_ldflags=[\"-lcublas\"]"), std::string::npos);
    EXPECT_NE(text->find("(kernelpro/abi.h: inlined above)"), std::string::npos);
    EXPECT_EQ(text->find("#include <kernelpro/abi.h>"), std::string::npos);
    EXPECT_NE(text->find("#undef __CUDA_NO_HALF_OPERATORS__"), std::string::npos);
    EXPECT_EQ(text->find("kp_setup("), std::string::npos);  // the kernel has none
    std::string with_setup = std::string(kKernel) + "KP_EXPORT int kp_setup(const kp_tensor*, int, const kp_tensor*, int) { return 0; }\n";
    auto text2 = model_new_source({&task, with_setup, "/* abi */\n", "import torch\n"});
    ASSERT_TRUE(text2.ok());
    EXPECT_NE(text2->find("int setup_rc = kp_setup("), std::string::npos);
}

TEST(Export, RefusesTasksWithoutAPyTorchReferenceAndKernelsWithoutKpForward) {
    TaskSpec task = imported_task();
    EXPECT_FALSE(model_new_source({&task, "int x;", "", ""}).ok());
    TaskSpec plain = task;
    plain.reference.pytorch.reset();
    auto refused = model_new_source({&plain, kKernel, "", ""});
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("imported task"), std::string::npos);
}

TEST(Export, StringLiteralsHoldAnyText) {
    EXPECT_EQ(python_string_literal("a\\nb"), "r'''a\\nb'''");
    EXPECT_EQ(python_string_literal("x = '''q'''"), "\"x = '''q'''\"");
    EXPECT_EQ(python_string_literal("ends with \\"), "\"ends with \\\\\"");
}

TEST(Export, TheFileIsValidPython) {
    TaskSpec task = imported_task();
    std::string tricky_problem = "s = '''a'''\nt = \"\\\\\"\n";
    auto text = model_new_source({&task, kKernel, "/* abi */\n", tricky_problem});
    ASSERT_TRUE(text.ok());
    fs::path file = make_temp_directory("kp-export-py").value() / "model_new.py";
    ASSERT_TRUE(write_file_atomically(file, *text).ok());
    auto python = python_executable();
    ASSERT_TRUE(python.ok()) << python.error().message;
    auto parsed = run_process({*python, "-c",
                               "import ast, sys; tree = ast.parse(open(sys.argv[1]).read()); "
                               "src = [n for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == '_PROBLEM_SOURCE'][0]; "
                               "assert ast.literal_eval(src.value) == sys.argv[2]",
                               file.string(), tricky_problem});
    ASSERT_TRUE(parsed.ok());
    EXPECT_TRUE(parsed->succeeded()) << parsed->stderr_text;
}
