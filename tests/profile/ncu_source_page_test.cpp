#include <gtest/gtest.h>

#include "fixture_path.h"
#include "profile/ncu_source_page.h"

using namespace kp::profile;
using kp::testing::read_fixture;

namespace {

const SourceRow* first_row_with(const SourcePage& page, const std::string& sass_prefix) {
    for (const auto& row : page.rows)
        if (row.sass.rfind(sass_prefix, 0) == 0) return &row;
    return nullptr;
}

}  // namespace

TEST(NcuSourcePage, CopyStridedShowsExcessL2Sectors) {
    auto pages = parse_ncu_source_csv(read_fixture("h200/ncu_source_copy_strided.csv"));
    ASSERT_TRUE(pages) << pages.error().message;
    ASSERT_EQ(pages->size(), 2u);  // ncu printed the kernel twice
    const SourcePage& page = pages->front();
    EXPECT_EQ(page.kernel_name, "copy_strided(const float *, float *, unsigned long, int)");
    ASSERT_EQ(page.rows.size(), 136u);  // 2176 bytes / 16
    EXPECT_EQ(page.rows.front().offset, 0u);
    EXPECT_EQ(page.rows.front().address, 0x7f68ab7a2900u);
    EXPECT_EQ(page.rows[1].offset, 16u);
    EXPECT_EQ(page.rows.front().sass, "LDC R1, c[0x0][0x28]");
    const SourceRow* load = first_row_with(page, "LDG.E");
    ASSERT_NE(load, nullptr);
    EXPECT_DOUBLE_EQ(*load->number("L2 Theoretical Sectors Global"), 67108864.0);  // 8x the ideal
    EXPECT_DOUBLE_EQ(*load->number("L2 Theoretical Sectors Global Ideal"), 8388608.0);
    EXPECT_EQ(load->metrics.at("Address Space").text(), "Global");
    EXPECT_FALSE(load->line.has_value());
    EXPECT_TRUE(page.has_column("stall_long_sb"));
    EXPECT_DOUBLE_EQ(page.column_sum("L2 Theoretical Sectors Global Excessive"), 58720256.0);
}

TEST(NcuSourcePage, TransposeShowsThirtyTwoWayConflict) {
    auto pages = parse_ncu_source_csv(read_fixture("h200/ncu_source_transpose.csv"));
    ASSERT_TRUE(pages) << pages.error().message;
    const SourcePage& page = pages->front();
    const SourceRow* lds = first_row_with(page, "LDS");
    ASSERT_NE(lds, nullptr);
    EXPECT_DOUBLE_EQ(*lds->number("L1 Conflicts Shared N-Way"), 32.0);
    EXPECT_DOUBLE_EQ(*lds->number("L1 Wavefronts Shared"), 16777216.0);
    EXPECT_DOUBLE_EQ(*lds->number("L1 Wavefronts Shared Ideal"), 524288.0);
    EXPECT_TRUE(page.has_column("L1 Wavefronts Shared Excessive"));
}

TEST(NcuSourcePage, CudaSassVariantCarriesSourceLines) {
    auto pages = parse_ncu_source_csv(read_fixture("synthetic/ncu_source_cuda_sass.csv"));
    ASSERT_TRUE(pages) << pages.error().message;
    const SourcePage& page = pages->front();
    EXPECT_EQ(page.file_path, "/work/kernels.cu");
    EXPECT_EQ(page.function_name, "copy_strided");
    ASSERT_EQ(page.rows.size(), 3u);
    EXPECT_EQ(page.rows[1].sass, "LDG.E R5, desc[UR4][R2.64]");
    ASSERT_TRUE(page.rows[1].line.has_value());
    EXPECT_EQ(*page.rows[1].line, 14);
    EXPECT_NE(page.rows[1].cuda_source.find("b[i]=a[j]"), std::string::npos);
    EXPECT_DOUBLE_EQ(*page.rows[1].number("L2 Theoretical Sectors Global"), 16777216.0);
}

TEST(NcuSourcePage, RejectsOtherText) { EXPECT_FALSE(parse_ncu_source_csv("\"ID\",\"Kernel\"\n")); }
