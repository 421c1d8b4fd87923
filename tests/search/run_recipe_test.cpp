// The run recipe as stored: every field survives the store's JSON, missing fields keep their
// defaults, a recipe from a newer kernelpro is refused.
#include <gtest/gtest.h>

#include "search/run_recipe.h"

using namespace kp::search;

TEST(RunRecipe, EveryFieldRoundTrips) {
    RunRecipe recipe;
    recipe.task_given = "tasks/gelu_f16";
    recipe.task_path = "/work/tasks/gelu_f16";
    recipe.baseline_given = "k.cu";
    recipe.baseline_path = "/work/k.cu";
    recipe.proposers = {"tuner", "llm"};
    recipe.llm = {"anthropic:claude-sonnet-4", "/work/kp.toml", "/work/rec.jsonl", "", {{"spec", "anthropic:claude-sonnet-4"}}};
    recipe.evaluation = {5, 2.0, 0.1};
    recipe.profile = {true, 30};
    recipe.out_dir = "/work/out";
    recipe.store = "/work/.kernelpro/runs.db";
    recipe.working_directory = "/work";
    auto back = recipe_from_json(nlohmann::json::parse(recipe_to_json(recipe).dump()));
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(recipe_to_json(*back), recipe_to_json(recipe));
    EXPECT_TRUE(back->profile.enabled);
    EXPECT_EQ(back->proposers, (std::vector<std::string>{"tuner", "llm"}));
    EXPECT_EQ(back->llm.settings["spec"], "anthropic:claude-sonnet-4");
}

TEST(RunRecipe, MissingFieldsKeepDefaultsAndNonsenseIsRefused) {
    auto sparse = recipe_from_json({{"task", {{"path", "/t"}}}});
    ASSERT_TRUE(sparse) << sparse.error().message;
    EXPECT_EQ(sparse->task_path, "/t");
    EXPECT_EQ(sparse->proposers, std::vector<std::string>{"tuner"});
    EXPECT_EQ(sparse->evaluation.trials, 3);
    EXPECT_FALSE(sparse->profile.enabled);
    EXPECT_TRUE(sparse->llm.settings.is_null());

    EXPECT_FALSE(recipe_from_json(nlohmann::json::array()));
    EXPECT_FALSE(recipe_from_json({{"proposers", "tuner"}}));  // a list, not a string
    auto newer = recipe_from_json({{"version", 99}});
    ASSERT_FALSE(newer);
    EXPECT_EQ(newer.error().message, "run recipe version 99 is newer than this kernelpro reads");
}
