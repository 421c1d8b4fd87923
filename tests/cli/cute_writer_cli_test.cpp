// The writer path end to end on a CUTLASS task (issue 14 item 6), with the scripted LLM of
// examples/llm-scripts/gemm_bf16_cute.jsonl: the coder searches the CUTLASS tree through its tools,
// writes a warp-specialized TMA + WGMMA kernel that does not compile, the fixer repairs it, and the
// repair builds for sm_90a, passes the guard and has its hardware claims backed by its SASS. Real
// nvcc and the nvidia-cutlass headers; the stand-in worker answers for the GPU (times on the H200:
// docs/benchmarks.md, `scripts/gpu-check cute`). Several minutes of nvcc on a 2-core machine.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../source_tree.h"
#include "build/cutlass_install.h"
#include "cli_runner.h"
#include "common/files.h"
#include "common/process.h"
#include "store/run_store.h"

namespace fs = std::filesystem;
using kp::cli_test::run_kernelpro;

TEST(CuteWriter, ScriptedRunSearchesFailsToCompileIsRepairedAndEndsCorrect) {
    if (!kp::find_executable("nvcc")) GTEST_SKIP() << "nvcc not found: the CUDA toolkit is needed to compile candidates";
    if (auto cutlass = kp::locate_cutlass(); !cutlass.ok()) GTEST_SKIP() << cutlass.error().message;
    const fs::path out = kp::make_temp_directory("kp-cute-writer").value();
    const std::map<std::string, std::string> environment{
        {"KERNELPRO_WORKER", kp::testing::source_path("tests/eval/fake_workers/standin_times.sh").string()},
        {"KERNELPRO_CACHE_DIR", KP_TEST_CACHE_DIR}};  // CutlassBuildTest may have built cutlass_ws.cu's start there
    auto run = run_kernelpro({"optimize", kp::testing::source_path("tasks/gemm_bf16").string(), "--proposer", "llm", "--llm",
                              "script:" + kp::testing::source_path("examples/llm-scripts/gemm_bf16_cute.jsonl").string(),
                              "--budget-evals", "3", "--seed", "1", "--out", (out / "run").string(), "--store",
                              (out / "runs.db").string(), "-q"},
                             out, environment);
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;

    auto store = kp::store::RunStore::open_read_only(out / "runs.db");
    ASSERT_TRUE(store.ok()) << store.error().message;
    auto evaluations = store->load_evaluations(1);
    ASSERT_TRUE(evaluations.ok());
    ASSERT_EQ(evaluations->size(), 3u);
    // The start (tuned.cu), the coder's kernel (cutlass::bfloat16 does not exist), the fixer's.
    EXPECT_EQ((*evaluations)[0].status_class, "ok");
    EXPECT_EQ((*evaluations)[1].status_class, "compile_error");
    auto failed = nlohmann::json::parse((*evaluations)[1].outcome_json);
    EXPECT_NE(failed.value("message", "").find("bfloat16"), std::string::npos) << failed.dump(2).substr(0, 2000);
    EXPECT_EQ((*evaluations)[2].status_class, "ok");
    // The repair says TMA and WGMMA (its comments, its schedule types) and its SASS has both.
    auto repaired = nlohmann::json::parse((*evaluations)[2].outcome_json);
    const auto& claims = repaired["details"]["hardware_claims"];
    ASSERT_TRUE(claims.is_object()) << repaired["details"].dump(2);
    EXPECT_FALSE(claims["claims"].empty());
    EXPECT_TRUE(claims["unbacked"].empty()) << claims.dump(2);

    // The coder's three tool calls ran against the installed tree and are stored with its exchanges.
    auto exchanges = store->load_llm_exchanges(1);
    ASSERT_TRUE(exchanges.ok());
    int calls_run = 0;
    bool found_the_schedule = false;
    for (const auto& e : *exchanges) {
        if (e.tool_calls.empty()) continue;
        for (const auto& call : nlohmann::json::parse(e.tool_calls)) {
            calls_run += call.value("ran", false);
            found_the_schedule = found_the_schedule || call.value("result", "").find("dispatch_policy.hpp") != std::string::npos;
        }
    }
    EXPECT_EQ(calls_run, 3);
    EXPECT_TRUE(found_the_schedule) << "search_code did not find KernelTmaWarpSpecializedCooperative in the tree";
    std::error_code ec;
    fs::remove_all(out, ec);
}
