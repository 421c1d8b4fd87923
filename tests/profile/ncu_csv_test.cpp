#include <gtest/gtest.h>

#include "fixture_path.h"
#include "profile/csv_reader.h"
#include "profile/ncu_csv.h"

using namespace kp::profile;
using kp::testing::read_fixture;

namespace {

const KernelMetrics* find_kernel(const std::vector<KernelMetrics>& kernels, const std::string& prefix) {
    for (const auto& k : kernels)
        if (k.name.rfind(prefix, 0) == 0) return &k;
    return nullptr;
}

}  // namespace

TEST(NcuNumber, StripsThousandsSeparatorsAndRejectsText) {
    EXPECT_DOUBLE_EQ(*parse_ncu_number("1,975,147,684.92"), 1975147684.92);
    EXPECT_DOUBLE_EQ(*parse_ncu_number("131,520"), 131520.0);
    EXPECT_DOUBLE_EQ(*parse_ncu_number("3.356e-05"), 3.356e-05);
    EXPECT_DOUBLE_EQ(*parse_ncu_number(" -12 "), -12.0);
    EXPECT_FALSE(parse_ncu_number("-"));
    EXPECT_FALSE(parse_ncu_number(""));
    EXPECT_FALSE(parse_ncu_number("NVIDIA H200"));
    EXPECT_FALSE(parse_ncu_number("(256, 1, 1)"));
    EXPECT_FALSE(parse_ncu_number("e"));
}

TEST(CsvReader, HandlesQuotesNewlinesNoiseAndTrailingCommas) {
    auto records = read_ncu_csv_records(
        "==PROF== Connected\nok\n\"a\",\"b,c\",\"say \"\"hi\"\"\",\n\"multi\nline\",\"x\"\nprogram output\n");
    ASSERT_EQ(records.size(), 2u);
    ASSERT_EQ(records[0].size(), 3u);
    EXPECT_EQ(records[0][1], "b,c");
    EXPECT_EQ(records[0][2], "say \"hi\"");
    EXPECT_EQ(records[1][0], "multi\nline");
}

TEST(NcuLongCsv, LiveMetricsWithProgramOutputMixedIn) {
    std::string text = read_fixture("h200/ncu_metrics_long.csv");
    EXPECT_EQ(detect_ncu_csv_layout(text), NcuCsvLayout::long_format);
    auto kernels = parse_ncu_csv(text);
    ASSERT_TRUE(kernels) << kernels.error().message;
    ASSERT_EQ(kernels->size(), 9u);
    const KernelMetrics& first = kernels->front();
    EXPECT_EQ(first.id, 0);
    EXPECT_EQ(first.name, "copy_vec4(const float4 *, float4 *, unsigned long)");
    EXPECT_EQ(first.block, "(256, 1, 1)");
    EXPECT_EQ(first.grid, "(1056, 1, 1)");
    EXPECT_EQ(first.metrics.size(), 6u);
    EXPECT_DOUBLE_EQ(*first.number("dram__bytes_read.sum"), 268448256.0);
    EXPECT_EQ(first.find("dram__bytes_read.sum")->unit, "byte");
    EXPECT_DOUBLE_EQ(*first.number("gpu__time_duration.sum"), 131904.0);
    const KernelMetrics* strided = find_kernel(*kernels, "copy_strided");
    ASSERT_NE(strided, nullptr);
    EXPECT_DOUBLE_EQ(*strided->number("dram__bytes_read.sum"), 4295023872.0);
    EXPECT_EQ(kernels->back().id, 8);
}

TEST(NcuLongCsv, DetailsPageWithRuleRows) {
    auto kernels = parse_ncu_csv(read_fixture("h200/ncu_details.csv"));
    ASSERT_TRUE(kernels) << kernels.error().message;
    ASSERT_EQ(kernels->size(), 9u);
    const KernelMetrics* vec4 = find_kernel(*kernels, "copy_vec4");
    ASSERT_NE(vec4, nullptr);
    EXPECT_NEAR(*vec4->number("SM Frequency"), 1940985867.59, 0.01);
    EXPECT_EQ(vec4->find("SM Frequency")->unit, "hz");

    const KernelMetrics* strided = find_kernel(*kernels, "copy_strided");
    ASSERT_NE(strided, nullptr);
    const RuleResult* uncoalesced = nullptr;
    for (const auto& rule : strided->rules)
        if (rule.name == "UncoalescedGlobalAccess") uncoalesced = &rule;
    ASSERT_NE(uncoalesced, nullptr);
    EXPECT_EQ(uncoalesced->type, "OPT");
    EXPECT_EQ(uncoalesced->speedup_type, "global");
    EXPECT_NEAR(*uncoalesced->estimated_speedup_pct, 77.47, 1e-9);
    EXPECT_NE(uncoalesced->description.find("excessive sectors"), std::string::npos);
    // INF rules carry no estimate.
    for (const auto& rule : strided->rules) {
        if (rule.name == "SOLBottleneck") {
            EXPECT_FALSE(rule.estimated_speedup_pct.has_value());
        }
    }
}

TEST(NcuWideCsv, RawPageWithUnitsRowAndTextValues) {
    std::string text = read_fixture("h200/ncu_raw_wide.csv");
    EXPECT_EQ(detect_ncu_csv_layout(text), NcuCsvLayout::wide_format);
    auto kernels = parse_ncu_csv(text);
    ASSERT_TRUE(kernels) << kernels.error().message;
    ASSERT_EQ(kernels->size(), 9u);
    const KernelMetrics* transpose = find_kernel(*kernels, "transpose_naive_smem");
    ASSERT_NE(transpose, nullptr);
    EXPECT_EQ(transpose->id, 2);
    EXPECT_EQ(transpose->block, "(32, 8, 1)");
    EXPECT_DOUBLE_EQ(*transpose->number("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"), 65579517.0);
    EXPECT_DOUBLE_EQ(*transpose->number("gpu__time_duration.sum"), 330176.0);
    EXPECT_EQ(transpose->find("gpu__time_duration.sum")->unit, "ns");
    EXPECT_EQ(transpose->find("launch__registers_per_thread")->unit, "register/thread");
    // Text values stay text.
    const MetricValue* policy = transpose->find("launch__cluster_scheduling_policy");
    ASSERT_NE(policy, nullptr);
    EXPECT_FALSE(policy->is_number());
    EXPECT_EQ(policy->text(), "PolicySpread");
    // Identity columns are not metrics; empty cells are skipped.
    EXPECT_EQ(transpose->find("Kernel Name"), nullptr);
    EXPECT_GT(transpose->metrics.size(), 2000u);
}

TEST(NcuCsv, RejectsTextThatIsNotNcuCsv) {
    EXPECT_FALSE(parse_ncu_csv("hello\nworld\n"));
    EXPECT_FALSE(parse_ncu_csv("\"a\",\"b\"\n\"1\",\"2\"\n"));
    EXPECT_EQ(detect_ncu_csv_layout(""), NcuCsvLayout::unknown);
}
