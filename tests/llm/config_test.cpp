// Provider spec strings and the config loader: precedence, validation, and readable errors.
#include <gtest/gtest.h>

#include <fstream>

#include "common/files.h"
#include "llm/llm_config.h"

using namespace kp::llm;
using namespace std::chrono_literals;

namespace {

TEST(ProviderSpec, ParsesProvidersAliasesAndModelsWithColons) {
    auto a = parse_provider_spec("openai:gpt-4.1");
    ASSERT_TRUE(a.ok());
    EXPECT_EQ(a->provider, "openai");
    EXPECT_EQ(a->model, "gpt-4.1");
    auto b = parse_provider_spec(" Anthropic : claude-sonnet-4 ");
    ASSERT_TRUE(b.ok()) << b.error().message;
    EXPECT_EQ(b->provider, "anthropic");
    EXPECT_EQ(b->model, "claude-sonnet-4");
    auto c = parse_provider_spec("ollama:qwen2.5-coder:32b");
    ASSERT_TRUE(c.ok());
    EXPECT_EQ(c->provider, "openai");
    EXPECT_EQ(c->model, "qwen2.5-coder:32b");
    EXPECT_EQ(c->to_string(), "openai:qwen2.5-coder:32b");
}

TEST(ProviderSpec, ErrorsSayWhatIsWrong) {
    auto expect_error = [](const char* spec, const char* words) {
        auto r = parse_provider_spec(spec);
        ASSERT_FALSE(r.ok()) << spec;
        EXPECT_NE(r.error().message.find(words), std::string::npos) << r.error().message;
    };
    expect_error("", "empty");
    expect_error("gpt-4.1", "no ':'");
    expect_error(":gpt-4.1", "no provider");
    expect_error("openai:", "no model");
    expect_error("gemini:pro", "unknown LLM provider 'gemini'");
    expect_error("openai:gpt 4", "white space");
}

Environment env(std::initializer_list<std::pair<const std::string, std::string>> values) { return Environment(values); }

TEST(LlmConfig, SpecAndKeyFromTheEnvironment) {
    auto config = load_llm_config({std::nullopt, std::nullopt, env({{"KERNELPRO_LLM", "anthropic:claude-sonnet-4"},
                                                                    {"ANTHROPIC_API_KEY", "ak"},
                                                                    {"OPENAI_API_KEY", "ok"}})});
    ASSERT_TRUE(config.ok()) << config.error().message;
    EXPECT_EQ(config->spec.provider, "anthropic");
    EXPECT_EQ(config->api_key, "ak");  // the provider's own variable, not the other one
    EXPECT_TRUE(config->base_url.empty());
}

TEST(LlmConfig, ExplicitSpecBeatsTheEnvironmentAndKernelproKeyBeatsConventional) {
    auto config = load_llm_config({std::nullopt, std::string("openai:gpt-4.1"),
                                   env({{"KERNELPRO_LLM", "anthropic:claude-sonnet-4"},
                                        {"KERNELPRO_LLM_API_KEY", "kp"},
                                        {"OPENAI_API_KEY", "ok"}})});
    ASSERT_TRUE(config.ok()) << config.error().message;
    EXPECT_EQ(config->spec.to_string(), "openai:gpt-4.1");
    EXPECT_EQ(config->api_key, "kp");
}

TEST(LlmConfig, LocalServerNeedsNoKey) {
    auto config = load_llm_config(
        {std::nullopt, std::string("vllm:qwen"), env({{"KERNELPRO_LLM_BASE_URL", "http://127.0.0.1:8000/v1"}})});
    ASSERT_TRUE(config.ok()) << config.error().message;
    EXPECT_EQ(config->base_url, "http://127.0.0.1:8000/v1");
    EXPECT_TRUE(config->api_key.empty());
}

TEST(LlmConfig, MissingChoicesAreClearErrors) {
    auto none = load_llm_config({std::nullopt, std::nullopt, {}});
    ASSERT_FALSE(none.ok());
    EXPECT_NE(none.error().message.find("no LLM chosen"), std::string::npos);

    auto keyless = load_llm_config({std::nullopt, std::string("openai:gpt-4.1"), {}});
    ASSERT_FALSE(keyless.ok());
    EXPECT_NE(keyless.error().message.find("set OPENAI_API_KEY or KERNELPRO_LLM_API_KEY"), std::string::npos)
        << keyless.error().message;

    auto bad_env = load_llm_config({std::nullopt, std::nullopt, env({{"KERNELPRO_LLM", "gpt-4.1"}})});
    ASSERT_FALSE(bad_env.ok());
    EXPECT_NE(bad_env.error().message.find("KERNELPRO_LLM:"), std::string::npos);

    auto bad_url = load_llm_config({std::nullopt, std::string("openai:x"), env({{"KERNELPRO_LLM_BASE_URL", "localhost:8000"}})});
    ASSERT_FALSE(bad_url.ok());
    EXPECT_NE(bad_url.error().message.find("http://"), std::string::npos);
}

TEST(LlmConfig, ReplayNeedsNeitherModelNorKey) {
    auto config = load_llm_config({std::nullopt, std::nullopt, env({{"KERNELPRO_LLM_REPLAY", "/tmp/run.jsonl"}})});
    ASSERT_TRUE(config.ok()) << config.error().message;
    EXPECT_EQ(config->replay_path, "/tmp/run.jsonl");
}

TEST(LlmConfig, FileSettingsWithEnvironmentOnTop) {
    auto dir = kp::make_temp_directory("kp-llm-config");
    ASSERT_TRUE(dir.ok());
    const auto path = *dir / "kernelpro.toml";
    std::ofstream(path) << R"(
[llm]
model = "openai:qwen2.5-coder"
base_url = "http://gpu-box:8000/v1"
api_key_env = "MY_VLLM_KEY"
timeout_s = 45.5
max_retries = 7
initial_backoff_s = 0.5
max_tokens = 16000
temperature = 0.0
prices = "prices.toml"
record = "runs/llm.jsonl"
)";
    auto config = load_llm_config({path, std::nullopt, env({{"MY_VLLM_KEY", "secret"}, {"OPENAI_BASE_URL", ""}})});
    ASSERT_TRUE(config.ok()) << config.error().message;
    EXPECT_EQ(config->spec.to_string(), "openai:qwen2.5-coder");
    EXPECT_EQ(config->base_url, "http://gpu-box:8000/v1");
    EXPECT_EQ(config->api_key, "secret");
    EXPECT_EQ(config->timeout, 45500ms);
    EXPECT_EQ(config->retry.max_retries, 7);
    EXPECT_EQ(config->retry.initial_backoff, 500ms);
    EXPECT_EQ(config->max_tokens, 16000);
    EXPECT_EQ(config->temperature, 0.0);
    EXPECT_EQ(config->price_file, *dir / "prices.toml");  // relative to the config file
    EXPECT_EQ(config->record_path, *dir / "runs/llm.jsonl");

    auto overridden = load_llm_config({path, std::nullopt,
                                       env({{"MY_VLLM_KEY", "secret"},
                                            {"KERNELPRO_LLM_BASE_URL", "http://other:9000/v1"},
                                            {"KERNELPRO_LLM", "anthropic:claude-opus-4"}})});
    ASSERT_TRUE(overridden.ok()) << overridden.error().message;
    EXPECT_EQ(overridden->spec.to_string(), "anthropic:claude-opus-4");
    EXPECT_EQ(overridden->base_url, "http://other:9000/v1");
    std::filesystem::remove_all(*dir);
}

TEST(LlmConfig, FileErrorsNameTheLine) {
    auto expect_error = [](const std::string& text, const std::string& words) {
        auto r = parse_llm_config(text, "kernelpro.toml", "");
        ASSERT_FALSE(r.ok()) << text;
        EXPECT_NE(r.error().message.find(words), std::string::npos) << r.error().message;
    };
    expect_error("[llm]\nmodel = \"openai:gpt-4.1\"\nmax_retries = -1\n", "kernelpro.toml:3: max_retries must be an integer >= 0");
    expect_error("[llm]\nmodle = \"openai:gpt-4.1\"\n", "kernelpro.toml:2: unknown key 'modle'");
    expect_error("[llm]\napi_key = \"sk-...\"\n", "keys do not belong in config files");
    expect_error("[llm]\nmodel = \"bard:x\"\n", "kernelpro.toml:2: LLM spec 'bard:x': unknown LLM provider");
    expect_error("[llm]\ntimeout_s = \"fast\"\n", "timeout_s must be a number");
    expect_error("[search]\nbudget = 3\n", "no [llm] table");
    expect_error("[llm\n", "kernelpro.toml:1:");
}

TEST(LlmConfig, ApiKeyEnvMustBeSet) {
    auto dir = kp::make_temp_directory("kp-llm-config");
    ASSERT_TRUE(dir.ok());
    const auto path = *dir / "llm.toml";
    std::ofstream(path) << "[llm]\nmodel = \"openai:gpt-4.1\"\napi_key_env = \"TEAM_KEY\"\n";
    auto r = load_llm_config({path, std::nullopt, {}});
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("TEAM_KEY, which is not set"), std::string::npos) << r.error().message;
    std::filesystem::remove_all(*dir);
}

}  // namespace
