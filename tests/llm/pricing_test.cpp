#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "common/files.h"
#include "llm/pricing.h"

using namespace kp::llm;

TEST(PriceTable, DefaultsAndPrefixMatching) {
    const auto table = PriceTable::defaults();
    ASSERT_TRUE(table.find("gpt-4.1"));
    EXPECT_DOUBLE_EQ(table.find("gpt-4.1")->output_per_million, 8.0);
    // Dated snapshots price as their family; the longest prefix wins.
    EXPECT_DOUBLE_EQ(table.find("gpt-4.1-2025-04-14")->input_per_million, 2.0);
    EXPECT_DOUBLE_EQ(table.find("gpt-4.1-mini-2025-04-14")->input_per_million, 0.4);
    EXPECT_DOUBLE_EQ(table.find("claude-sonnet-4-20250514")->output_per_million, 15.0);
    EXPECT_DOUBLE_EQ(table.find("openai/gpt-4o")->input_per_million, 2.5);
    EXPECT_FALSE(table.find("o3x"));  // a prefix must end at a separator
    EXPECT_FALSE(table.find("qwen2.5-coder-32b"));
}

TEST(PriceTable, PricesUsage) {
    Usage usage;
    usage.tokens_in = 1'000'000;
    usage.tokens_out = 500'000;
    PriceTable::defaults().price("claude-sonnet-4", usage);
    EXPECT_TRUE(usage.priced);
    EXPECT_DOUBLE_EQ(usage.cost, 3.0 + 7.5);
    PriceTable::defaults().price("my-local-model", usage);
    EXPECT_FALSE(usage.priced);
    EXPECT_EQ(usage.cost, 0.0);
}

TEST(PriceTable, LoadsOverridesFromToml) {
    auto table = PriceTable::parse(R"(
[models."qwen2.5-coder"]
input_per_million = 0.0
output_per_million = 0.0

[models."gpt-4.1"]
input_per_million = 1.0
output_per_million = 4.0
)",
                                   "prices.toml");
    ASSERT_TRUE(table.ok()) << table.error().message;
    EXPECT_TRUE(table->find("qwen2.5-coder-32b"));
    EXPECT_DOUBLE_EQ(table->find("gpt-4.1")->input_per_million, 1.0);
    EXPECT_DOUBLE_EQ(table->find("claude-opus-4")->input_per_million, 15.0);  // defaults kept

    auto dir = kp::make_temp_directory("kp-prices");
    ASSERT_TRUE(dir.ok());
    std::ofstream(*dir / "p.toml") << "[models.m]\ninput_per_million = 1\noutput_per_million = 2\n";
    auto loaded = PriceTable::load(*dir / "p.toml", PriceTable{});
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    EXPECT_DOUBLE_EQ(loaded->find("m")->output_per_million, 2.0);
    EXPECT_FALSE(loaded->find("gpt-4.1"));  // empty base
    std::filesystem::remove_all(*dir);
}

TEST(PriceTable, ErrorsNameFileLineAndKey) {
    auto expect_error = [](const char* text, const char* words) {
        auto r = PriceTable::parse(text, "prices.toml");
        ASSERT_FALSE(r.ok()) << text;
        EXPECT_NE(r.error().message.find(words), std::string::npos) << r.error().message;
    };
    expect_error("[models.m]\ninput_per_million = -1\noutput_per_million = 1\n", "prices.toml:2:");
    expect_error("[models.m]\ninput_per_million = 1\n", "needs input_per_million and output_per_million");
    expect_error("[models.m]\ninput = 1\n", "unknown key 'input'");
    expect_error("[prices]\n", "no [models] table");
    expect_error("[models.m\n", "prices.toml:1:");
    EXPECT_FALSE(PriceTable::load("/nonexistent/prices.toml").ok());
}

TEST(Spend, SumsRepliesAndFailuresAcrossThreads) {
    SpendTracker tracker;
    Usage usage;
    usage.tokens_in = 100;
    usage.tokens_out = 10;
    usage.cost = 0.001;
    usage.latency_s = 0.5;
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < 250; ++i) tracker.add_reply(usage);
        });
    for (auto& t : threads) t.join();
    tracker.add_failure(2.0);
    usage.priced = false;
    usage.cost = 0;
    tracker.add_reply(usage);
    const Spend spend = tracker.snapshot();
    EXPECT_EQ(spend.requests, 1001);
    EXPECT_EQ(spend.failed_requests, 1);
    EXPECT_EQ(spend.unpriced_requests, 1);
    EXPECT_EQ(spend.tokens_in, 100100);
    EXPECT_EQ(spend.tokens_out, 10010);
    EXPECT_NEAR(spend.cost, 1.0, 1e-9);
    EXPECT_NEAR(spend.latency_s, 1000 * 0.5 + 2.0 + 0.5, 1e-9);
}

TEST(Spend, Limits) {
    Spend spend;
    spend.cost = 5.02;
    spend.tokens_in = 900;
    spend.tokens_out = 100;
    spend.requests = 9;
    spend.failed_requests = 1;
    EXPECT_FALSE(exceeded_limit(spend, {}));
    EXPECT_EQ(*exceeded_limit(spend, {5.0, 0, 0}), "LLM cost $5.0200 reached the $5.00 limit");
    EXPECT_FALSE(exceeded_limit(spend, {6.0, 0, 0}));
    EXPECT_TRUE(exceeded_limit(spend, {0, 1000, 0}));
    EXPECT_FALSE(exceeded_limit(spend, {0, 1001, 0}));
    EXPECT_TRUE(exceeded_limit(spend, {0, 0, 10}));
}
