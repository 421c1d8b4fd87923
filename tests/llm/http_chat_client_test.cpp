// The HTTP chat client against a local scripted server, for both providers: success, retries on
// 429 (Retry-After), 5xx, timeouts and refused connections, the final errors, malformed replies.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "llm/http_chat_client.h"
#include "scripted_server.h"

using namespace kp::llm;
using kp::llm::testing::fixture;
using kp::llm::testing::ScriptedResponse;
using kp::llm::testing::ScriptedServer;
using namespace std::chrono_literals;

namespace {

struct ProviderCase {
    std::string provider;
    std::unique_ptr<ChatProtocol> (*protocol)();
    std::string model;
    std::string success_fixture;
    std::string retryable_error_fixture;  // the provider's own 5xx/overload body
    std::int64_t tokens_in, tokens_out;    // what success_fixture reports
    double price_in, price_out;            // default price table, per 1M tokens
};

void PrintTo(const ProviderCase& c, std::ostream* os) { *os << c.provider << ":" << c.model; }

class HttpChatClientTest : public ::testing::TestWithParam<ProviderCase> {
protected:
    LlmConfig config_for(const ScriptedServer& server) const {
        LlmConfig config;
        config.spec = {GetParam().provider, GetParam().model};
        // OpenAI-compatible servers are usually mounted at /v1; Anthropic's base has no /v1.
        config.base_url = server.base_url() + (GetParam().provider == "openai" ? "/v1" : "");
        config.api_key = "sk-test-123";
        config.timeout = 2000ms;
        config.retry.max_retries = 3;
        config.retry.initial_backoff = 10ms;
        config.retry.max_backoff = 40ms;
        return config;
    }

    // Records each back-off instead of sleeping, so tests are fast and see the exact delays.
    HttpChatClient client_for(const ScriptedServer& server, std::optional<LlmConfig> config = std::nullopt) {
        return HttpChatClient(config ? *config : config_for(server), GetParam().protocol(), PriceTable::defaults(), spend_,
                              nullptr,
                              [this](std::chrono::milliseconds d) { delays_.push_back(d); });
    }

    static ChatRequest request() {
        return ChatRequest{{{"system", "You are an expert CUDA programmer."}, {"user", "Write the kernel."}}, 0, -1, "coder"};
    }

    ScriptedResponse success() const { return {200, fixture(GetParam().success_fixture), {}, 0ms}; }

    std::shared_ptr<SpendTracker> spend_ = std::make_shared<SpendTracker>();
    std::vector<std::chrono::milliseconds> delays_;
};

TEST_P(HttpChatClientTest, SuccessSendsTheProviderWireFormatAndAccountsForUsage) {
    ScriptedServer server({success()});
    auto client = client_for(server);
    auto reply = client.complete(request());
    ASSERT_TRUE(reply.ok()) << reply.error().message;

    EXPECT_NE(reply->text.find("KP_EXPORT int kp_forward"), std::string::npos);
    EXPECT_EQ(reply->usage.tokens_in, GetParam().tokens_in);
    EXPECT_EQ(reply->usage.tokens_out, GetParam().tokens_out);
    EXPECT_FALSE(reply->usage.estimated);
    EXPECT_TRUE(reply->usage.priced);
    const double cost = (GetParam().tokens_in * GetParam().price_in + GetParam().tokens_out * GetParam().price_out) / 1e6;
    EXPECT_NEAR(reply->usage.cost, cost, 1e-12);
    EXPECT_EQ(reply->attempts, 1);
    EXPECT_GT(reply->usage.latency_s, 0.0);

    const auto received = server.received();
    ASSERT_EQ(received.size(), 1u);
    const auto body = nlohmann::json::parse(received[0].body);
    EXPECT_EQ(body["model"], GetParam().model);
    if (GetParam().provider == "openai") {
        EXPECT_EQ(received[0].path, "/v1/chat/completions");
        EXPECT_EQ(received[0].headers.at("authorization"), "Bearer sk-test-123");
        ASSERT_EQ(body["messages"].size(), 2u);
        EXPECT_EQ(body["messages"][0]["role"], "system");
        EXPECT_EQ(body["max_tokens"], 8192);
        EXPECT_EQ(reply->finish_reason, "stop");
    } else {
        EXPECT_EQ(received[0].path, "/v1/messages");
        EXPECT_EQ(received[0].headers.at("x-api-key"), "sk-test-123");
        EXPECT_EQ(received[0].headers.at("anthropic-version"), "2023-06-01");
        EXPECT_EQ(body["system"], "You are an expert CUDA programmer.");
        ASSERT_EQ(body["messages"].size(), 1u);
        EXPECT_EQ(body["messages"][0]["role"], "user");
        EXPECT_EQ(reply->finish_reason, "end_turn");
    }
    // The raw request never carries the key.
    EXPECT_EQ(reply->raw_request.dump().find("sk-test-123"), std::string::npos);

    const Spend spend = spend_->snapshot();
    EXPECT_EQ(spend.requests, 1);
    EXPECT_EQ(spend.tokens_in, GetParam().tokens_in);
    EXPECT_NEAR(spend.cost, cost, 1e-12);
}

TEST_P(HttpChatClientTest, RateLimitWithRetryAfterIsHonouredThenSucceeds) {
    const std::string body = GetParam().provider == "openai" ? fixture("openai_rate_limited.json")
                                                                      : fixture("anthropic_rate_limited.json");
    ScriptedServer server({{429, body, {{"Retry-After", "2"}}, 0ms}, success()});
    auto client = client_for(server);
    auto reply = client.complete(request());
    ASSERT_TRUE(reply.ok()) << reply.error().message;
    EXPECT_EQ(reply->attempts, 2);
    ASSERT_EQ(delays_.size(), 1u);
    EXPECT_EQ(delays_[0], 2000ms);  // the server's word, not our back-off
    EXPECT_EQ(server.received().size(), 2u);
}

TEST_P(HttpChatClientTest, ServerErrorIsRetriedWithBackoffThenSucceeds) {
    ScriptedServer server({{500, fixture(GetParam().retryable_error_fixture), {}, 0ms},
                           {529, fixture("anthropic_overloaded.json"), {}, 0ms},
                           success()});
    auto client = client_for(server);
    auto reply = client.complete(request());
    ASSERT_TRUE(reply.ok()) << reply.error().message;
    EXPECT_EQ(reply->attempts, 3);
    ASSERT_EQ(delays_.size(), 2u);
    // Equal jitter: between half and all of initial * 2^retry, capped at max_backoff.
    EXPECT_GE(delays_[0], 5ms);
    EXPECT_LE(delays_[0], 10ms);
    EXPECT_GE(delays_[1], 10ms);
    EXPECT_LE(delays_[1], 20ms);
}

TEST_P(HttpChatClientTest, TimeoutIsRetriedThenSucceeds) {
    ScriptedServer server({{200, fixture(GetParam().success_fixture), {}, 1500ms}, success()});
    auto config = config_for(server);
    config.timeout = 300ms;
    auto client = client_for(server, config);
    const auto start = std::chrono::steady_clock::now();
    auto reply = client.complete(request());
    ASSERT_TRUE(reply.ok()) << reply.error().message;
    EXPECT_EQ(reply->attempts, 2);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 1400ms);  // did not wait for the slow answer
}

TEST_P(HttpChatClientTest, ExhaustedRetriesEndInOneClearError) {
    const std::string body = fixture(GetParam().retryable_error_fixture);
    ScriptedServer server({{503, body, {}, 0ms}, {503, body, {}, 0ms}, {503, body, {}, 0ms}, success()});
    auto config = config_for(server);
    config.retry.max_retries = 2;
    auto client = client_for(server, config);
    auto reply = client.complete(request());
    ASSERT_FALSE(reply.ok());
    const std::string& message = reply.error().message;
    EXPECT_NE(message.find("gave up after 3 attempts"), std::string::npos) << message;
    EXPECT_NE(message.find("HTTP 503"), std::string::npos) << message;
    EXPECT_NE(message.find(GetParam().model), std::string::npos) << message;
    EXPECT_EQ(server.received().size(), 3u);
    EXPECT_EQ(spend_->snapshot().failed_requests, 1);
    EXPECT_EQ(spend_->snapshot().requests, 0);
}

TEST_P(HttpChatClientTest, ClientErrorsAreNotRetried) {
    ScriptedServer server({{401, fixture("openai_invalid_key.json"), {}, 0ms}, success()});
    auto client = client_for(server);
    auto reply = client.complete(request());
    ASSERT_FALSE(reply.ok());
    EXPECT_NE(reply.error().message.find("HTTP 401: invalid_request_error: Incorrect API key"), std::string::npos)
        << reply.error().message;
    EXPECT_EQ(server.received().size(), 1u);
    EXPECT_TRUE(delays_.empty());
}

TEST_P(HttpChatClientTest, RetryAfterBeyondTheLimitEndsTheCall) {
    ScriptedServer server({{429, "{}", {{"Retry-After", "3600"}}, 0ms}, success()});
    auto client = client_for(server);
    auto reply = client.complete(request());
    ASSERT_FALSE(reply.ok());
    EXPECT_NE(reply.error().message.find("retry after 3600 s"), std::string::npos) << reply.error().message;
    EXPECT_TRUE(delays_.empty());
}

TEST_P(HttpChatClientTest, RefusedConnectionsAreRetriedThenReported) {
    int dead_port = 0;
    {
        ScriptedServer gone({});
        dead_port = gone.port();
    }
    ScriptedServer unused({});
    auto config = config_for(unused);
    config.base_url = "http://127.0.0.1:" + std::to_string(dead_port);
    auto client = client_for(unused, config);
    auto reply = client.complete(request());
    ASSERT_FALSE(reply.ok());
    EXPECT_NE(reply.error().message.find("connection failed"), std::string::npos) << reply.error().message;
    EXPECT_EQ(delays_.size(), 3u);
}

TEST_P(HttpChatClientTest, NonJsonSuccessBodyIsAnErrorValue) {
    ScriptedServer server({{200, "<html>gateway says hi</html>", {}, 0ms}});
    auto client = client_for(server);
    auto reply = client.complete(request());
    ASSERT_FALSE(reply.ok());
    EXPECT_NE(reply.error().message.find("not JSON"), std::string::npos) << reply.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    Providers, HttpChatClientTest,
    ::testing::Values(ProviderCase{"openai", make_openai_protocol, "gpt-4.1", "openai_coder_reply.json",
                                   "openai_server_error.json", 2841, 912, 2.0, 8.0},
                      ProviderCase{"anthropic", make_anthropic_protocol, "claude-sonnet-4", "anthropic_coder_reply.json",
                                   "anthropic_overloaded.json", 2903, 1017, 3.0, 15.0}),
    [](const auto& info) { return info.param.provider; });

// Malformed replies with status 200: error values, no retries at the HTTP level.
TEST(HttpChatClientMalformed, OpenAiReplyWithoutChoices) {
    ScriptedServer server({{200, fixture("openai_no_choices.json"), {}, 0ms}});
    LlmConfig config;
    config.spec = {"openai", "qwen"};
    config.base_url = server.base_url() + "/v1";
    HttpChatClient client(config, make_openai_protocol(), PriceTable::defaults(), nullptr);
    auto reply = client.complete({{{"user", "hi"}}, 0, -1, ""});
    ASSERT_FALSE(reply.ok());
    EXPECT_NE(reply.error().message.find("no choices"), std::string::npos) << reply.error().message;
    EXPECT_EQ(server.received().size(), 1u);
    // A local server needs no key: no Authorization header is sent.
    EXPECT_EQ(server.received()[0].headers.count("authorization"), 0u);
}

// A reply with neither text nor a tool call is unusable; one with only tool calls is a tool turn.
TEST(HttpChatClientMalformed, AnthropicReplyWithoutTextOrToolCalls) {
    ScriptedServer server({{200, R"({"type":"message","content":[{"type":"thinking","thinking":"..."}]})", {}, 0ms},
                           {200, R"({"type":"message","content":[{"type":"tool_use","id":"t","name":"x","input":{"a":1}}]})", {}, 0ms}});
    LlmConfig config;
    config.spec = {"anthropic", "claude-sonnet-4"};
    config.base_url = server.base_url();
    HttpChatClient client(config, make_anthropic_protocol(), PriceTable::defaults(), nullptr);
    auto reply = client.complete({{{"user", "hi"}}, 0, -1, ""});
    ASSERT_FALSE(reply.ok());
    EXPECT_NE(reply.error().message.find("no text content"), std::string::npos) << reply.error().message;
    auto tool_turn = client.complete({{{"user", "hi"}}, 0, -1, ""});
    ASSERT_TRUE(tool_turn.ok()) << tool_turn.error().message;
    EXPECT_TRUE(tool_turn->text.empty());
    ASSERT_EQ(tool_turn->tool_calls.size(), 1u);
    EXPECT_EQ(tool_turn->tool_calls[0], (ToolCall{"t", "x", {{"a", 1}}}));
}

TEST(HttpChatClientMalformed, MissingUsageIsEstimatedAndFlagged) {
    ScriptedServer server(
        {{200, R"({"choices":[{"message":{"role":"assistant","content":"twelve chars"},"finish_reason":"stop"}]})", {}, 0ms}});
    LlmConfig config;
    config.spec = {"openai", "llama"};
    config.base_url = server.base_url() + "/v1";
    auto spend = std::make_shared<SpendTracker>();
    HttpChatClient client(config, make_openai_protocol(), PriceTable::defaults(), spend);
    auto reply = client.complete({{{"user", "abcdefgh"}}, 0, -1, ""});
    ASSERT_TRUE(reply.ok()) << reply.error().message;
    EXPECT_TRUE(reply->usage.estimated);
    EXPECT_EQ(reply->usage.tokens_in, 2);
    EXPECT_EQ(reply->usage.tokens_out, 3);
    EXPECT_FALSE(reply->usage.priced);  // "llama" is not in the price table
    EXPECT_EQ(spend->snapshot().unpriced_requests, 1);
}

// One real sleep, so the wiring to the clock is proven too.
TEST(HttpChatClientRealSleep, RetryAfterReallyWaits) {
    ScriptedServer server({{429, fixture("openai_rate_limited.json"), {{"Retry-After", "1"}}, 0ms},
                           {200, fixture("openai_coder_reply.json"), {}, 0ms}});
    LlmConfig config;
    config.spec = {"openai", "gpt-4.1"};
    config.base_url = server.base_url() + "/v1";
    config.api_key = "k";
    HttpChatClient client(config, make_openai_protocol(), PriceTable::defaults(), nullptr);
    const auto start = std::chrono::steady_clock::now();
    auto reply = client.complete({{{"user", "hi"}}, 0, -1, ""});
    ASSERT_TRUE(reply.ok()) << reply.error().message;
    EXPECT_GE(std::chrono::steady_clock::now() - start, 950ms);
    EXPECT_GE(reply->usage.latency_s, 0.95);
}

}  // namespace
