// Bad input through the real kernelpro binary, as a new user would type it: every case ends with
// the documented exit code (0 ok, 1 the candidate failed, 2 usage or task error, 3 environment)
// and one clear first line, never an abort. Cases that compile skip without nvcc; cases about a
// missing GPU skip where there is one.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "cli/cli_runner.h"
#include "common/tool_locator.h"
#include "common/utf8.h"
#include "gpu/cuda_driver.h"
#include "source_tree.h"

namespace fs = std::filesystem;
using kp::cli_test::run_kernelpro;

namespace {

bool have_nvcc() { return kp::locate_nvidia_tool("nvcc").has_value(); }
bool have_gpu() { return kp::gpu::CudaDriver::load().ok(); }

const std::string kSource = kp::testing::source_tree().string();
const std::string kTuned = kSource + "/tasks/transpose_f32/candidates/tuned.cu";

// A valid small task; each case replaces one line.
const std::string kTask = R"(name = "small"
[[input]]
name = "x"
dtype = "f32"
shape = [64, 32]
[[output]]
name = "y"
dtype = "f32"
shape = [32, 64]
[tolerance]
rtol = 0.0
[cost]
flops = 0
precision = "f32"
[reference]
source = "reference.cu"
)";

class BadInput : public testing::Test {
protected:
    void SetUp() override { folder_ = kp::make_temp_directory("kp-bad-input").value(); }
    void TearDown() override {
        std::error_code ignored;
        fs::remove_all(folder_, ignored);
    }
    // A task folder holding task.toml (kTask with `from` replaced by `to`) and a reference.
    fs::path task_with(const std::string& from, const std::string& to, const std::string& reference = "// reference\n") {
        std::string text = kTask;
        if (!from.empty()) {
            auto at = text.find(from);
            EXPECT_NE(at, std::string::npos) << from;
            if (at != std::string::npos) text.replace(at, from.size(), to);
        }
        fs::path dir = folder_ / "task";
        fs::create_directories(dir);
        std::ofstream(dir / "task.toml") << text;
        std::ofstream(dir / "reference.cu") << reference;
        return dir;
    }
    fs::path write(const std::string& name, const std::string& text) {
        fs::path path = folder_ / name;
        std::ofstream(path, std::ios::binary) << text;
        return path;
    }
    kp::cli_test::CliRun check(const fs::path& task, const fs::path& candidate, std::vector<std::string> extra = {}) {
        std::vector<std::string> args{"check", task.string(), candidate.string()};
        args.insert(args.end(), extra.begin(), extra.end());
        return run_kernelpro(args, folder_);
    }
    fs::path folder_;
};

struct TaskCase {
    std::string from;
    std::string to;
    std::string first_line;  // stderr's first line, exactly
};

}  // namespace

TEST_F(BadInput, EveryTaskFileProblemIsOneLineWithExitTwo) {
    const TaskCase cases[] = {
        {"shape = [64, 32]", "shape = [1048576, 1048576]",
         "task.toml:5: input[0].shape: needs 4096 GiB; a task's tensors may need at most 24 GiB (the evaluation keeps "
         "several copies on the device)"},
        {"shape = [64, 32]", "shape = [4294967296, 4294967296, 4294967296]",
         "task.toml:5: input[0].shape: its size does not fit 64 bits; a task's tensors may need at most 24 GiB (the "
         "evaluation keeps several copies on the device)"},
        {"flops = 0", "flops = nan", "task.toml:13: cost.flops: must be a finite number"},
        {"flops = 0", "flops = inf", "task.toml:13: cost.flops: must be a finite number"},
        {"flops = 0", "flops = \"lots\"", "task.toml:13: cost.flops: must be a number, not a string"},
        {"rtol = 0.0", "rtol = nan", "task.toml:11: tolerance.rtol: must be a finite number"},
        {"precision = \"f32\"", "precision = true", "task.toml:14: cost.precision: must be a string, not a boolean"},
        {"[reference]", "[build]\nlibraries = \"cublas\"\n[reference]",
         "task.toml:16: build.libraries: must be an array of names such as [\"cublas\"], not a string"},
        {"shape = [64, 32]", "shape = [16384.0, 8192]",
         "task.toml:5: input[0].shape: dimensions must be positive integers, not a float"},
        {"shape = [64, 32]", "shape = \"16384\"",
         "task.toml:5: input[0].shape: must be an array of 0 to 8 positive integers, not a string"},
        {"shape = [32, 64]", "shape = [32, 64]\nstride = [0, 0]",
         "task.toml:10: output[0].stride: two elements of an output share memory (a stride of 0, or strides that overlap)"},
        {"name = \"small\"", "name = \"" + std::string(300, 'a') + "\"", "task.toml:1: name: at most 64 characters"},
        {"name = \"y\"", "name = \"x\"", "task.toml:7: output[0].name: tensor name 'x' is used twice"},
        {"name = \"small\"", "name = 5", "task.toml:1: name: must be a string, not an integer"},
    };
    for (const auto& c : cases) {
        auto run = check(task_with(c.from, c.to), kTuned);
        EXPECT_EQ(run.exit_code, 2) << c.to << "\n" << run.err;
        EXPECT_EQ(run.first_err_line(), c.first_line) << c.to;
    }
}

TEST_F(BadInput, SymlinkLoopTaskFolderIsReportedNotThrown) {
    fs::create_symlink(folder_ / "loop", folder_ / "loop");
    auto run = check(folder_ / "loop", kTuned);
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_EQ(run.first_err_line(), (folder_ / "loop").string() + ": cannot open the task: Too many levels of symbolic links");
}

TEST_F(BadInput, TaskFileThatIsAFolderIsReported) {
    fs::create_directories(folder_ / "odd" / "task.toml");
    auto run = check(folder_ / "odd", kTuned);
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_EQ(run.first_err_line(), (folder_ / "odd" / "task.toml").string() + ": not a file (a task is a folder with task.toml)");
}

TEST_F(BadInput, NonUtf8TaskPathGivesValidUtf8Message) {
    fs::path odd = folder_ / "t\xff\xfe";
    fs::create_directories(odd);
    auto run = check(odd, kTuned);
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_TRUE(kp::is_valid_utf8(run.err)) << run.err;
    EXPECT_EQ(run.first_err_line(), kp::path_text(odd / "task.toml") + ": no such task file (a task is a folder with task.toml)");
}

TEST_F(BadInput, MalformedTuneLinesAndUndeclaredValuesFailCheck) {
    auto task = task_with("", "");
    auto malformed = write("malformed.cu", "// kp:tune BLOCK\n__global__ void k() {}\n");
    auto run = check(task, malformed);
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_EQ(run.first_err_line(), "error: " + malformed.string() + ": line 1: kp:tune expects NAME=v1,v2,... but got 'BLOCK'");

    auto bytes = write("bytes.cu", "// kp:tune BLOCK=\xff\xfe,128\n");
    run = check(task, bytes);
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_TRUE(kp::is_valid_utf8(run.err)) << run.err;
    EXPECT_EQ(run.first_err_line(), "error: " + bytes.string() +
                                        ": line 1: BLOCK value '\xEF\xBF\xBD\xEF\xBF\xBD' must be printable ASCII (it becomes "
                                        "-DBLOCK=VALUE)");

    run = check(task, kTuned, {"-D", "TILES=32"});
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_EQ(run.first_err_line(),
              "error: -D TILES: " + kTuned + " declares no such kp:tune parameter (declared: TILE, BLOCK_ROWS)");
    run = check(task, kTuned, {"-D", "TILE=48"});
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_EQ(run.first_err_line(), "error: -D TILE=48: not a value " + kTuned + " declares for TILE (32,64)");
}

TEST_F(BadInput, ParamOptionBeforeThePositionalsDoesNotSwallowThem) {
    auto task = task_with("shape = [64, 32]", "shape = [0, 32]");  // fails at the task, after parsing
    auto run = run_kernelpro({"check", "-D", "TILE=32", task.string(), kTuned}, folder_);
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_EQ(run.first_err_line(), "task.toml:5: input[0].shape: dimensions must be positive integers");
    run = run_kernelpro({"profile", "--tools", "register_spills", "--collectors", "ptxas", folder_.string() + "/none",
                         kTuned},
                        folder_);
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_EQ(run.first_err_line(), folder_.string() + "/none: no such task file (a task is a folder with task.toml)");
}

TEST_F(BadInput, CompilerOutputWithInvalidUtf8CitesTheUsersFile) {
    if (!have_nvcc()) GTEST_SKIP() << "nvcc not found: this case compiles a candidate";
    auto task = task_with("", "");
    auto candidate = write("my_kernel\xff.cu", "#include <kernelpro/abi.h>\nint broken = \"\xff\xfe\" + ;\n");
    auto run = check(task, candidate);
    EXPECT_EQ(run.exit_code, 1) << run.err;
    EXPECT_TRUE(kp::is_valid_utf8(run.out)) << run.out;
    EXPECT_EQ(run.first_out_line().rfind("build    compile_error", 0), 0u) << run.out;
    EXPECT_NE(run.out.find(kp::path_text(candidate) + "(2): error"), std::string::npos) << run.out;
    EXPECT_EQ(run.out.find("candidate.cu"), std::string::npos) << run.out;
    run = check(task, candidate, {"--json"});
    EXPECT_EQ(run.exit_code, 1) << run.err;
    auto doc = nlohmann::json::parse(run.out, nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << run.out;
    EXPECT_EQ(doc["status"], "compile_error");
}

TEST_F(BadInput, CheckBuildsTheReferenceToo) {
    if (!have_nvcc()) GTEST_SKIP() << "nvcc not found: this case compiles the reference";
    auto task = task_with("", "", "#include <kernelpro/abi.h>\nthis is not CUDA;\n");
    auto run = check(task, kTuned);
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_EQ(run.first_err_line(), "error: the task's reference " + (task / "reference.cu").string() + " does not build:");
    EXPECT_NE(run.err.find("reference.cu(2): error"), std::string::npos) << run.err;
}

TEST_F(BadInput, NoGpuIsAnEnvironmentErrorEverywhere) {
    if (have_gpu()) GTEST_SKIP() << "a GPU is present: the no-GPU path cannot be shown here";
    auto task = kSource + "/tasks/transpose_f32";
    auto doctor = run_kernelpro({"doctor", "--json"}, folder_);
    auto report = nlohmann::json::parse(doctor.out, nullptr, false);
    ASSERT_FALSE(report.is_discarded()) << doctor.out;
    std::string gpu_error = report["gpu"].value("error", "");
    ASSERT_EQ(gpu_error.rfind("no GPU: ", 0), 0u) << doctor.out;

    auto eval = run_kernelpro({"eval", task, kTuned}, folder_);
    EXPECT_EQ(eval.exit_code, 3) << eval.err;
    EXPECT_EQ(eval.first_err_line(), "error: " + gpu_error);

    auto optimize = run_kernelpro({"optimize", task, "--budget-evals", "2", "--store", (folder_ / "runs.db").string()}, folder_);
    EXPECT_EQ(optimize.exit_code, 3) << optimize.err;
    EXPECT_EQ(optimize.first_err_line(), "error: " + gpu_error);
    EXPECT_FALSE(fs::exists(folder_ / "runs.db")) << "optimize recorded a run without a GPU";
    EXPECT_FALSE(fs::exists(folder_ / "kernelpro-out")) << "optimize created an output folder without a GPU";
}

TEST_F(BadInput, NonFiniteAndNegativeNumbersAreUsageErrors) {
    auto task = kSource + "/tasks/transpose_f32";
    struct Case {
        std::vector<std::string> args;
        std::string first_line;
    } cases[] = {
        {{"eval", task, kTuned, "--noise", "nan"}, "--noise: must be a finite number >= 0, got 'nan'"},
        {{"eval", task, kTuned, "--max-time", "-1"}, "--max-time: must be a finite number >= 0, got '-1'"},
        {{"optimize", task, "--budget-seconds", "-5"}, "--budget-seconds: must be a finite number >= 0, got '-5'"},
        {{"optimize", task, "--min-time", "inf"}, "--min-time: must be a finite number >= 0, got 'inf'"},
        {{"runs", "resume", "1", "--budget-seconds", "-1"}, "--budget-seconds: must be a finite number >= 0, got '-1'"},
    };
    for (const auto& c : cases) {
        auto run = run_kernelpro(c.args, folder_);
        EXPECT_EQ(run.exit_code, 2) << c.args.back() << "\n" << run.err;
        EXPECT_EQ(run.first_err_line(), c.first_line);
    }
}

TEST_F(BadInput, UnknownCommandAndHelpSayWhatExists) {
    auto run = run_kernelpro({"frobnicate"}, folder_);
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_EQ(run.first_err_line().rfind("error: unknown command 'frobnicate' (commands: doctor, check, eval, device, optimize, runs, profile", 0), 0u)
        << run.first_err_line();
    EXPECT_TRUE(run.first_err_line().ends_with("; see kernelpro --help)")) << run.first_err_line();
    run = run_kernelpro({"help"}, folder_);
    EXPECT_EQ(run.exit_code, 0);
    EXPECT_NE(run.out.find("Subcommands:"), std::string::npos) << run.out;
    run = run_kernelpro({"help", "check"}, folder_);
    EXPECT_EQ(run.exit_code, 0);
    EXPECT_NE(run.out.find("static guard"), std::string::npos) << run.out;
    run = run_kernelpro({}, folder_);
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_NE(run.out.find("Subcommands:"), std::string::npos) << run.out;
}

TEST_F(BadInput, RunsListWorksWithoutAStoreAndTakesStoreAfterTheSubcommand) {
    auto run = run_kernelpro({"runs", "list"}, folder_);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.first_out_line(), "(no runs)");
    run = run_kernelpro({"runs", "list", "--store", (folder_ / "elsewhere.db").string()}, folder_);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.first_out_line(), "(no runs)");
    EXPECT_FALSE(fs::exists(folder_ / "elsewhere.db")) << "listing created a store";
}

TEST_F(BadInput, DoctorFindsTheToolsTheProfilersUse) {
    auto doctor = run_kernelpro({"doctor", "--json"}, folder_);
    ASSERT_EQ(doctor.exit_code, 0) << doctor.err;
    auto report = nlohmann::json::parse(doctor.out, nullptr, false);
    ASSERT_FALSE(report.is_discarded()) << doctor.out;
    int checked = 0;
    for (const auto& tool : report["tools"]) {
        std::string name = tool.value("name", "");
        if (name != "nvcc" && name != "ncu" && name != "nvdisasm" && name != "cuobjdump") continue;
        auto located = kp::locate_nvidia_tool(name);  // what `profile` and the builder run
        EXPECT_EQ(tool.value("found", false), located.has_value()) << name;
        if (located) {
            EXPECT_EQ(tool.value("path", ""), *located) << name;
        }
        ++checked;
    }
    EXPECT_EQ(checked, 4) << doctor.out;
}
