#include <gtest/gtest.h>

#include <fstream>

#include "common/files.h"
#include "kernelbench/kernelbench_checkout.h"
#include "kernelbench/task_from_import.h"

using namespace kp;
using namespace kp::kernelbench;
namespace fs = std::filesystem;

TEST(KernelBenchCheckout, ListsALevelByProblemId) {
    fs::path root = make_temp_directory("kp-kb-checkout").value();
    fs::create_directories(root / "KernelBench" / "level1");
    for (const char* f : {"19_ReLU.py", "2_Standard_matrix_multiplication_.py", "100_HingeLoss.py", "README.md"})
        std::ofstream(root / "KernelBench" / "level1" / f) << "#\n";
    auto level = list_level(root, 1);
    ASSERT_TRUE(level.ok()) << level.error().message;
    ASSERT_EQ(level->size(), 3u);
    EXPECT_EQ((*level)[0].id, 2);
    EXPECT_EQ((*level)[2].id, 100);
    auto chosen = select_problems(*level, {19, 2});
    ASSERT_TRUE(chosen.ok());
    EXPECT_EQ((*chosen)[0].file.filename(), "19_ReLU.py");
    EXPECT_FALSE(select_problems(*level, {7}).ok());
    auto missing = list_level(root, 3);
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().message.find("KB_ROOT/KernelBench/level3"), std::string::npos);
}

TEST(KernelBenchCheckout, ProblemIdLists) {
    auto ids = parse_problem_ids("1,19,23");
    ASSERT_TRUE(ids.ok());
    EXPECT_EQ(*ids, (std::vector<int>{1, 19, 23}));
    ids = parse_problem_ids("3-5,4,10");
    ASSERT_TRUE(ids.ok());
    EXPECT_EQ(*ids, (std::vector<int>{3, 4, 5, 10}));
    EXPECT_FALSE(parse_problem_ids("1,,2").ok());
    EXPECT_FALSE(parse_problem_ids("5-3").ok());
    EXPECT_FALSE(parse_problem_ids("x").ok());
}

TEST(KernelBenchCheckout, TaskNames) {
    EXPECT_EQ(task_name_for("19_ReLU.py", 1, 19, "fp32"), "kb_l1_019_ReLU");
    EXPECT_EQ(task_name_for("2_Standard_matrix_multiplication_.py", 1, 2, "bf16"), "kb_l1_002_Standard_matrix_multiplication_bf16");
    EXPECT_EQ(task_name_for("my model.py", 0, 0, "fp32"), "my_model");
    // KernelBench's longest names fit a task name (64 characters), cut after the problem number;
    // without a number a hash of the whole name keeps two long names apart.
    const std::string longest = "79_conv_transposed_1D_asymmetric_input_square_kernel___padded____strided____dilated__.py";
    const std::string cut = task_name_for(longest, 1, 79, "bf16");
    EXPECT_LE(cut.size(), kp::kTaskNameMax) << cut;
    EXPECT_EQ(cut.rfind("kb_l1_079_conv_transposed_1D_asymmetric_input_square_kernel", 0), 0u) << cut;
    EXPECT_TRUE(cut.ends_with("_bf16")) << cut;
    EXPECT_EQ(cut.find("__"), std::string::npos) << cut;
    const std::string a = task_name_for(std::string(70, 'a') + "_one.py", 0, 0, "fp32");
    const std::string b = task_name_for(std::string(70, 'a') + "_two.py", 0, 0, "fp32");
    EXPECT_LE(a.size(), kp::kTaskNameMax);
    EXPECT_NE(a, b);
}
