// The report's pieces without a browser: the diff, the page assembly (escaping, policy, missing
// libraries), the bench reader and the run model of a recorded run.
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>

#include "recorded_run.h"
#include "report/bench_report_model.h"
#include "report/html_document.h"
#include "report/run_report_model.h"
#include "report/source_diff.h"

using namespace kp;
using namespace kp::report;

namespace {
std::filesystem::path temp_path(const std::string& name) {
    return std::filesystem::temp_directory_path() / ("kp_report_" + std::to_string(getpid()) + "_" + name);
}
}  // namespace

TEST(SourceDiff, MarksChangesWithLineNumbersAndCollapsesFarContext) {
    std::string before, after;
    for (int i = 1; i <= 20; ++i) before += "line " + std::to_string(i) + "\n";
    after = before;
    after.replace(after.find("line 10\n"), 8, "line ten\nline ten and a half\n");
    auto rows = diff_lines(before, after, 2);
    std::vector<std::string> kinds;
    for (const auto& r : rows) kinds.push_back(std::string(1, r.kind) + r.text);
    EXPECT_EQ(kinds, (std::vector<std::string>{"~7", " line 8", " line 9", "-line 10", "+line ten", "+line ten and a half",
                                               " line 11", " line 12", "~8"}));
    EXPECT_EQ(rows[3].old_line, 10);
    EXPECT_EQ(rows[3].new_line, 0);
    EXPECT_EQ(rows[5].new_line, 11);
    EXPECT_EQ(rows[6].old_line, 11);
    EXPECT_EQ(rows[6].new_line, 12);
}

TEST(SourceDiff, IdenticalSourcesCollapseToOneRow) {
    auto rows = diff_lines("a\nb\n", "a\nb\n");
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].kind, '~');
}

TEST(HtmlDocument, DataCannotEndItsBlockAndNonUtf8BytesSurvive) {
    nlohmann::json model = {{"kind", "run"}, {"run", {{"task", "t</script><script>alert(1)</script>"}, {"id", 3}}},
                            {"reply", std::string("bad \xff\xfe bytes </script>")}};
    auto page = render_report_html(model, load_javascript_libraries("/nonexistent"));
    auto data_at = page.html.find("id=\"kp-data\">");
    ASSERT_NE(data_at, std::string::npos);
    auto data_end = page.html.find("</script>", data_at);
    std::string data = page.html.substr(data_at, data_end - data_at);
    EXPECT_EQ(data.find('<'), std::string::npos) << "a '<' inside the data block";
    EXPECT_NE(data.find("\\ufffd"), std::string::npos) << "invalid bytes are replaced, not dropped";
    EXPECT_NE(page.html.find("&lt;/script&gt;"), std::string::npos) << "the title is escaped";
    EXPECT_NE(page.html.find(kContentSecurityPolicy), std::string::npos);
}

TEST(HtmlDocument, MissingLibrariesAreNamedOnThePageAndToTheCaller) {
    auto page = render_report_html({{"kind", "bench"}, {"problems", nlohmann::json::array()}}, load_javascript_libraries("/nonexistent"));
    ASSERT_EQ(page.notices.size(), 2u);
    EXPECT_NE(page.notices[0].find("libjs-d3"), std::string::npos);
    EXPECT_NE(page.notices[1].find("libjs-highlight.js"), std::string::npos);
    EXPECT_NE(page.html.find("kp-notice"), std::string::npos);
}

TEST(BenchModel, ReadsProblemsAndDerivesSpeedupsFromTimes) {
    auto dir = temp_path("bench");
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "results.json") << R"({"suite": "kernelbench-l1", "device": "H200", "problems": [
        {"name": "relu", "level": 1, "status": "ok", "eager_seconds": 2e-5, "compile_seconds": 1e-5, "kernel_seconds": 5e-6},
        {"name": "conv", "level": 2, "status": "incorrect", "correct": false},
        {"name": 7, "status": ["odd"], "speedup_vs_eager": "fast"}, "not an object"]})";
    auto model = bench_report_model(dir);
    ASSERT_TRUE(model.ok()) << model.error().message;
    ASSERT_EQ((*model)["problems"].size(), 3u);
    const auto& relu = (*model)["problems"][0];
    EXPECT_TRUE(relu["correct"].get<bool>());
    EXPECT_DOUBLE_EQ(relu["speedup_vs_eager"].get<double>(), 4.0);
    EXPECT_DOUBLE_EQ(relu["speedup_vs_compile"].get<double>(), 2.0);
    EXPECT_FALSE((*model)["problems"][1]["correct"].get<bool>());
    EXPECT_EQ((*model)["problems"][2]["name"], "?");
    EXPECT_FALSE((*model)["problems"][2].contains("speedup_vs_eager"));
    std::ofstream(dir / "results.json") << "\xff{ not json";
    auto bad = bench_report_model(dir);
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find("problems"), std::string::npos);
    std::filesystem::remove_all(dir);
}

TEST(RunModel, RecordedRunHasEveryNodeEvaluationExchangeAndTheBestDiff) {
    auto recorded = kp::report::testing::record_gelu_run(temp_path("model.db"), 14);
    auto store = store::RunStore::open(recorded.store_path);
    ASSERT_TRUE(store.ok());
    auto model = run_report_model(*store, recorded.run_id);
    ASSERT_TRUE(model.ok()) << model.error().message;
    auto nodes = store->load_nodes(recorded.run_id);
    auto evaluations = store->load_evaluations(recorded.run_id);
    auto exchanges = store->load_llm_exchanges(recorded.run_id);
    EXPECT_EQ((*model)["nodes"].size(), nodes->size());
    EXPECT_EQ((*model)["llm"].size(), exchanges->size());
    EXPECT_GE(exchanges->size(), 4u) << "the script's analyst, coder and fixer replies";
    for (const auto& x : (*model)["llm"]) EXPECT_EQ(x["tool_calls"], nlohmann::json::array());  // no code search here
    int evaluated = 0, failed = 0;
    for (const auto& n : (*model)["nodes"]) {
        if (n["evaluation"].get<int>() > 0) ++evaluated;
        if (n["status"] != "ok" && n["status"] != "pending") ++failed;
    }
    EXPECT_EQ(evaluated, static_cast<int>(evaluations->size()));
    EXPECT_GE(failed, 1) << "the script's broken kernels";
    ASSERT_TRUE(model->contains("best"));
    bool added = false;
    for (const auto& row : (*model)["best"]["diff"]) added = added || row["kind"] == "+";
    EXPECT_TRUE(added) << "the best kernel differs from the start";
    EXPECT_GT((*model)["roofline"]["peak_dram_bytes_per_s"].get<double>(), 0);
    EXPECT_GT((*model)["totals"]["gpu_s"].get<double>(), 0);
    std::filesystem::remove(recorded.store_path);
}
