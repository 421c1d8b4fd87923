// What every registered LLM provider must do: parametrized over the registry, so a new provider
// is held to it without a line of test code. (Each HTTP provider's wire format has its own
// recorded-reply tests in http_chat_client_test.cpp and chat_protocol_test.cpp.)
#include <gtest/gtest.h>

#include <cctype>

#include "common/files.h"
#include "llm/client_factory.h"
#include "llm/llm_provider.h"

using namespace kp::llm;
using namespace std::chrono_literals;

namespace {

const LlmProvider& provider_named(const std::string& name) { return *llm_providers().find(name); }

std::string model_for(const LlmProvider& provider) { return provider.model_is_path ? "/nonexistent/replies.jsonl" : "m-1"; }

std::string upper(std::string text) {
    for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return text;
}

}  // namespace

class EveryProvider : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryProvider, ItsNameAndItsAliasesSelectIt) {
    const LlmProvider& provider = provider_named(GetParam());
    std::vector<std::string> names = provider.aliases;
    names.push_back(provider.name);
    names.push_back(upper(provider.name));  // provider names are case-insensitive
    for (const auto& name : names) {
        auto spec = parse_provider_spec(name + ":" + model_for(provider));
        ASSERT_TRUE(spec) << name << ": " << spec.error().message;
        EXPECT_EQ(spec->provider, provider.name);
        EXPECT_EQ(spec->model, model_for(provider));
        EXPECT_EQ(spec->to_string(), provider.name + ":" + model_for(provider));
    }
    EXPECT_FALSE(provider.summary.empty());
    EXPECT_TRUE(provider.make_client);
}

// The key comes from the provider's own variable (never another provider's); without one a
// provider that needs a key fails with one clear line, unless a base URL of one's own is set.
TEST_P(EveryProvider, ReadsItsOwnKeyAndAMissingKeyIsOneClearError) {
    const LlmProvider& provider = provider_named(GetParam());
    const std::string spec = provider.name + ":" + model_for(provider);
    Environment others;
    for (const LlmProvider* other : llm_providers().entries())
        if (other != &provider && !other->api_key_variable.empty()) others[other->api_key_variable] = "not-mine";

    auto without = load_llm_config({std::nullopt, spec, others});
    if (provider.api_key_variable.empty()) {
        ASSERT_TRUE(without) << without.error().message;
        EXPECT_TRUE(without->api_key.empty());
        return;
    }
    ASSERT_FALSE(without);
    EXPECT_EQ(without.error().message, "no API key for " + spec + ": set " + provider.api_key_variable +
                                           " or KERNELPRO_LLM_API_KEY (or KERNELPRO_LLM_BASE_URL for a local server)");
    auto resolved = resolve_llm_config({std::nullopt, spec, others});  // the same, the key left to the caller
    ASSERT_TRUE(resolved) << resolved.error().message;
    EXPECT_FALSE(require_api_key(*resolved));

    Environment mine = others;
    mine[provider.api_key_variable] = "my-key";
    auto keyed = load_llm_config({std::nullopt, spec, mine});
    ASSERT_TRUE(keyed) << keyed.error().message;
    EXPECT_EQ(keyed->api_key, "my-key");

    if (!provider.base_url_variable.empty()) {
        auto local = load_llm_config({std::nullopt, spec, {{provider.base_url_variable, "http://127.0.0.1:8000/v1"}}});
        ASSERT_TRUE(local) << local.error().message;
        EXPECT_EQ(local->base_url, "http://127.0.0.1:8000/v1");
    }
}

// A client whose endpoint is gone (a refused port, a missing script) fails as an error value that
// names what was asked for; nothing throws.
TEST_P(EveryProvider, ABrokenEndpointIsAnErrorValue) {
    const LlmProvider& provider = provider_named(GetParam());
    LlmConfig config;
    config.spec = {provider.name, model_for(provider)};
    config.base_url = "http://127.0.0.1:9/v1";  // the discard port: nothing listens
    config.api_key = "k";
    config.timeout = 2000ms;
    config.retry.max_retries = 0;
    auto client = make_chat_client(config, std::make_shared<SpendTracker>());
    if (!client) {
        EXPECT_TRUE(provider.model_is_path) << client.error().message;
        EXPECT_NE(client.error().message.find(model_for(provider)), std::string::npos) << client.error().message;
        return;
    }
    auto reply = (*client)->complete({{{"user", "hi"}}, 0, -1, "coder"});
    ASSERT_FALSE(reply);
    EXPECT_NE(reply.error().message.find(config.spec.to_string()), std::string::npos) << reply.error().message;
}

INSTANTIATE_TEST_SUITE_P(Registered, EveryProvider, ::testing::ValuesIn(llm_providers().names()),
                         [](const auto& info) { return info.param; });

TEST(LlmProviders, TheBuiltInsAreThereAndAnUnknownOneIsOneError) {
    for (const char* name : {"openai", "anthropic", "script"}) EXPECT_NE(llm_providers().find(name), nullptr) << name;
    auto spec = parse_provider_spec("gemini:pro");
    ASSERT_FALSE(spec);
    EXPECT_EQ(spec.error().message, "LLM spec 'gemini:pro': " + llm_providers().lookup("gemini").error().message);
    EXPECT_NE(spec.error().message.find("unknown LLM provider 'gemini' (registered: anthropic, openai, script"),
              std::string::npos)
        << spec.error().message;
}
