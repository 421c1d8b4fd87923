// `kernelpro import` end to end on problem files written for these tests in KernelBench's format
// (problems/): the real Python importer with PyTorch (CPU), the task folders it writes, and one
// reason for each problem that cannot become a task.
#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "common/files.h"
#include "common/process.h"
#include "eval/python_environment.h"
#include "kernelbench/import_report.h"
#include "kernelbench/problem_import.h"
#include "task/safetensors.h"
#include "task/task_spec.h"
#include "../source_tree.h"
#include "needs_torch.h"

using namespace kp;
using namespace kp::kernelbench;
namespace fs = std::filesystem;

namespace {

const fs::path kProblems = kp::testing::source_path("tests/kernelbench/problems");

ImportJob job_for(const fs::path& file, const fs::path& out) {
    ImportJob job;
    job.file = file;
    job.naming.name = task_name_for(file, 0, 0, "fp32");
    job.naming.description = "test problem";
    job.task_dir = out / job.naming.name;
    return job;
}

std::map<std::string, ImportOutcome> import_files(const std::vector<std::string>& files) {
    fs::path out = make_temp_directory("kp-import-test").value();
    std::vector<ImportJob> jobs;
    for (const auto& f : files) jobs.push_back(job_for(kProblems / f, out));
    ImportOptions options;
    options.jobs = 2;
    auto result = import_problems(jobs, options);
    EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
    std::map<std::string, ImportOutcome> map;
    if (result.ok())
        for (const auto& o : *result) map[o.job.file.filename().string()] = o;
    return map;
}

std::map<std::string, ImportOutcome> g_cache;

void warm(const std::vector<std::string>& files) {
    auto got = import_files(files);
    g_cache.insert(got.begin(), got.end());
}

std::vector<std::string> all_problems() {
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(kProblems)) files.push_back(e.path().filename().string());
    return files;
}

// The binary runs as one ctest test (CMakeLists.txt): the first lookup imports every problem in one
// Python process, the rest read the cache.
const ImportOutcome* outcome_of(const std::string& file) {
    if (g_cache.empty()) warm(all_problems());
    if (!g_cache.count(file)) warm({file});
    auto it = g_cache.find(file);
    return it == g_cache.end() ? nullptr : &it->second;
}

TaskSpec converted(const std::string& file) {
    const ImportOutcome* o = outcome_of(file);
    EXPECT_NE(o, nullptr) << file;
    if (!o) return {};
    EXPECT_EQ(o->status, ImportStatus::converted) << file << ": " << o->reason;
    auto task = load_task(o->job.task_dir);
    EXPECT_TRUE(task.ok()) << (task.ok() ? "" : task.error().message);
    return task.ok() ? *task : TaskSpec{};
}

std::string reason(const std::string& file) {
    const ImportOutcome* o = outcome_of(file);
    if (!o) return "(no outcome)";
    EXPECT_EQ(o->status, ImportStatus::unconvertible) << file;
    return o->reason;
}

}  // namespace

TEST(Import, ElementwiseProblem) {
    KP_SKIP_WITHOUT_TORCH();
    TaskSpec t = converted("1_LeakyReluScaled.py");
    ASSERT_EQ(t.inputs.size(), 1u);
    EXPECT_EQ(t.inputs[0].name, "x");
    EXPECT_EQ(t.inputs[0].shape, (std::vector<int64_t>{64, 1000}));
    EXPECT_EQ(t.inputs[0].distribution.kind, DistributionKind::Uniform);  // torch.rand: uniform [0, 1)
    EXPECT_DOUBLE_EQ(t.inputs[0].distribution.a, 0.0);
    EXPECT_DOUBLE_EQ(t.inputs[0].distribution.b, 1.0);
    ASSERT_EQ(t.outputs.size(), 1u);
    EXPECT_EQ(t.outputs[0].shape, (std::vector<int64_t>{64, 1000}));
    EXPECT_DOUBLE_EQ(t.tolerance_for(t.outputs[0]).atol, 1e-4);  // KernelBench's fp32 tolerance
    EXPECT_EQ(t.cost.precision, "f32");                          // no matmul: CUDA-core rate
    EXPECT_GT(t.cost.flops, 0);                                   // the elementwise estimate
    EXPECT_DOUBLE_EQ(t.cost.bytes, 2.0 * 64 * 1000 * 4);
    ASSERT_TRUE(t.reference.pytorch);
    EXPECT_EQ(t.reference.pytorch->source, t.directory / "problem.py");
    EXPECT_TRUE(fs::is_regular_file(t.directory / "problem.py"));
    EXPECT_FALSE(t.reference.pytorch->tf32);
    EXPECT_TRUE(t.flags.empty());
}

TEST(Import, ReductionWithShiftedNormalInputs) {
    KP_SKIP_WITHOUT_TORCH();
    TaskSpec t = converted("2_RowSum.py");
    EXPECT_EQ(t.inputs[0].distribution.kind, DistributionKind::Normal);  // randn * 2 + 1
    EXPECT_DOUBLE_EQ(t.inputs[0].distribution.a, 1.0);
    EXPECT_DOUBLE_EQ(t.inputs[0].distribution.b, 2.0);
    EXPECT_EQ(t.outputs[0].shape, (std::vector<int64_t>{32, 1}));
}

TEST(Import, MatmulFlopsComeFromPyTorchsCounter) {
    KP_SKIP_WITHOUT_TORCH();
    TaskSpec t = converted("3_Matmul.py");
    ASSERT_EQ(t.inputs.size(), 2u);
    EXPECT_EQ(t.inputs[1].name, "B");
    EXPECT_DOUBLE_EQ(t.cost.flops, 2.0 * 128 * 256 * 64);
    EXPECT_EQ(t.cost.precision, "tf32");  // a safe floor for fp32-accurate tensor-core methods
}

TEST(Import, ConvolutionParametersAreFixedInputsByStateDictName) {
    KP_SKIP_WITHOUT_TORCH();
    TaskSpec t = converted("4_Conv2dRelu.py");
    ASSERT_EQ(t.inputs.size(), 3u);
    EXPECT_EQ(t.reference.pytorch->forward_inputs, 1);
    EXPECT_EQ(t.inputs[1].name, "conv.weight");
    EXPECT_EQ(t.inputs[1].shape, (std::vector<int64_t>{8, 3, 3, 3}));
    EXPECT_EQ(t.inputs[1].distribution.kind, DistributionKind::Fixed);
    EXPECT_EQ(t.inputs[2].name, "conv.bias");
    auto values = read_safetensors(t.inputs[1].distribution.file);
    ASSERT_TRUE(values.ok()) << values.error().message;
    EXPECT_EQ(values->at("conv.weight").bytes.size(), 8u * 3 * 3 * 3 * 4);
    EXPECT_GT(t.cost.flops, 2.0 * 2 * 8 * 16 * 16 * 27 - 1);
}

TEST(Import, ModuleWithParametersAndBuffers) {
    KP_SKIP_WITHOUT_TORCH();
    TaskSpec t = converted("5_LinearBatchNorm.py");
    std::vector<std::string> names;
    for (const auto& i : t.inputs) names.push_back(i.name);
    // Forward's argument, then state_dict order (own parameters, own buffers, then the children).
    EXPECT_EQ(names, (std::vector<std::string>{"x", "scale", "offset", "fc.weight", "fc.bias", "bn.weight", "bn.bias",
                                               "bn.running_mean", "bn.running_var", "bn.num_batches_tracked"}));
    const auto& tracked = t.inputs.back();
    EXPECT_EQ(tracked.dtype, DType::I64);
    EXPECT_TRUE(tracked.shape.empty());  // a 0-dim buffer
    auto values = read_safetensors(t.inputs[2].distribution.file);
    ASSERT_TRUE(values.ok());
    // offset = linspace(-1, 1, 24): the stored values are the module's own.
    float first = 0, last = 0;
    std::memcpy(&first, values->at("offset").bytes.data(), 4);
    std::memcpy(&last, values->at("offset").bytes.data() + 23 * 4, 4);
    EXPECT_FLOAT_EQ(first, -1.0f);
    EXPECT_FLOAT_EQ(last, 1.0f);
}

TEST(Import, ScalarOutputIntegerTargetsAndApproximationsAreNoted) {
    KP_SKIP_WITHOUT_TORCH();
    TaskSpec t = converted("6_HingeLikeLoss.py");
    EXPECT_TRUE(t.outputs[0].shape.empty());
    EXPECT_EQ(t.inputs[1].dtype, DType::F32);  // KernelBench casts every input to the precision
    EXPECT_EQ(t.inputs[1].distribution.kind, DistributionKind::Integer);
    EXPECT_DOUBLE_EQ(t.inputs[1].distribution.a, -1.0);
    EXPECT_DOUBLE_EQ(t.inputs[1].distribution.b, 1.0);
    ASSERT_TRUE(t.origin);
    ASSERT_EQ(t.origin->notes.size(), 2u);
    EXPECT_NE(t.origin->notes[0].find("random factor"), std::string::npos);
    EXPECT_NE(t.origin->notes[1].find("integers 2 apart"), std::string::npos);
    EXPECT_FALSE(t.has_flag("degenerate"));
}

TEST(Import, ConstantOutputPassingIsFlaggedDegenerate) {
    KP_SKIP_WITHOUT_TORCH();
    TaskSpec t = converted("7_WideSoftmax.py");
    EXPECT_TRUE(t.has_flag("degenerate"));
    EXPECT_NE(t.origin->notes.back().find("all-zeros output passes"), std::string::npos);
}

TEST(Import, TupleOfTensorsGivesTwoOutputs) {
    KP_SKIP_WITHOUT_TORCH();
    TaskSpec t = converted("8_SplitPair.py");
    ASSERT_EQ(t.outputs.size(), 2u);
    EXPECT_EQ(t.outputs[0].name, "output0");
    EXPECT_EQ(t.outputs[0].shape, (std::vector<int64_t>{8, 1}));
    EXPECT_EQ(t.outputs[1].shape, (std::vector<int64_t>{8, 128}));
}

TEST(Import, ConstantPythonNumberIsWrittenIntoTheReference) {
    KP_SKIP_WITHOUT_TORCH();
    TaskSpec t = converted("9_ScaleByConstant.py");
    ASSERT_EQ(t.inputs.size(), 1u);
    ASSERT_EQ(t.reference.pytorch->constants.size(), 1u);
    EXPECT_EQ(t.reference.pytorch->constants[0].name, "s");
    EXPECT_EQ(t.reference.pytorch->constants[0].position, 1);
    EXPECT_DOUBLE_EQ(t.reference.pytorch->constants[0].value.get<double>(), 2.5);
}

TEST(Import, UnconvertibleProblemsHaveOneClearReason) {
    KP_SKIP_WITHOUT_TORCH();
    EXPECT_NE(reason("20_RandomScalarArgument.py").find("Python int that changes between draws"), std::string::npos);
    EXPECT_NE(reason("21_TriangularInputs.py").find("triu(...) of random values"), std::string::npos);
    EXPECT_NE(reason("22_TupleWithNumber.py").find("returns a float"), std::string::npos);
    EXPECT_NE(reason("23_PretrainedDownload.py").find("needs a download"), std::string::npos);
    EXPECT_NE(reason("24_MissingPackage.py").find("needs the Python package 'kernelpro_no_such_package'"), std::string::npos);
    EXPECT_NE(reason("25_SyntaxError.py").find("syntax error at line 3"), std::string::npos);
    EXPECT_NE(reason("26_NotKernelBench.py").find("no 'Model' defined"), std::string::npos);
}

TEST(Import, ReportCountsEveryProblem) {
    KP_SKIP_WITHOUT_TORCH();
    std::vector<ImportOutcome> list;
    for (const auto& file : all_problems()) list.push_back(*outcome_of(file));
    auto counts = count_outcomes(list);
    EXPECT_EQ(counts.problems, 16u);
    EXPECT_EQ(counts.converted, 9u);
    EXPECT_EQ(counts.unconvertible, 7u);
    EXPECT_EQ(counts.errors, 0u);
    EXPECT_EQ(counts.degenerate, 1u);
    std::string md = import_report_markdown(list, "test");
    EXPECT_NE(md.find("16 problems: 9 converted, 7 unconvertible, 0 errors; 1 flagged degenerate"), std::string::npos) << md;
    EXPECT_NE(md.find("| 21_TriangularInputs.py | unconvertible |"), std::string::npos) << md;
    auto j = import_report_json(list);
    EXPECT_EQ(j["counts"]["converted"], 9);
}

TEST(Import, MissingPythonPackageIsAnEnvironmentError) {
    ImportJob job = job_for(kProblems / "1_LeakyReluScaled.py", make_temp_directory("kp-import-nopython").value());
    setenv("KERNELPRO_PYTHON", "/nonexistent/python3", 1);
    auto result = import_problems({job}, ImportOptions{});
    unsetenv("KERNELPRO_PYTHON");
    ASSERT_FALSE(result.ok());
    EXPECT_NE(result.error().message.find("KERNELPRO_PYTHON=/nonexistent/python3"), std::string::npos) << result.error().message;
}

// The bridge's non-GPU half on the JSON the worker receives: the eager Reference built from the
// task (stored weights, constants), called through raw pointers, against KernelBench's own build.
TEST(Import, BridgeReproducesTheModuleFromTheTaskJson) {
    KP_SKIP_WITHOUT_TORCH();
    auto python = python_executable();
    auto package = python_package_directory();
    ASSERT_TRUE(python.ok() && package.ok());
    for (const char* file : {"5_LinearBatchNorm.py", "8_SplitPair.py", "9_ScaleByConstant.py"}) {
        TaskSpec t = converted(file);
        fs::path json = t.directory / "task.json";
        ASSERT_TRUE(write_file_atomically(json, to_json(t).dump()).ok());
        ProcessOptions options;
        options.extra_environment["PYTHONPATH"] = package->string();
        auto run = run_process({*python, (kProblems.parent_path() / "python" / "bridge_on_cpu.py").string(), json.string()}, options);
        ASSERT_TRUE(run.ok());
        EXPECT_TRUE(run->succeeded()) << file << ": " << run->stdout_text << run->stderr_text;
        EXPECT_NE(run->stdout_text.find("ok"), std::string::npos) << file;
    }
}
