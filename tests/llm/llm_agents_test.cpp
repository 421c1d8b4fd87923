// The analyst/coder/fixer calls: template filling, extraction, malformed-reply retries, exchange
// reporting, budget refusal; end to end over HTTP for both providers, and record-then-replay.
#include <gtest/gtest.h>

#include <deque>

#include "common/files.h"
#include "llm/exchange_recording.h"
#include "llm/http_chat_client.h"
#include "llm/llm_agents.h"
#include "llm/replay_client.h"
#include "scripted_server.h"

using namespace kp::llm;
using kp::llm::testing::fixture;
using kp::llm::testing::ScriptedServer;
using namespace std::chrono_literals;

namespace {

// Answers from a list of texts (or errors), and keeps every request.
class FakeChatClient : public ChatClient {
public:
    explicit FakeChatClient(std::deque<kp::Result<std::string>> replies, std::string finish = "stop")
        : replies_(std::move(replies)), finish_(std::move(finish)) {}
    kp::Result<ChatReply> complete(const ChatRequest& request) override {
        requests.push_back(request);
        if (replies_.empty()) return kp::make_error("fake: no more replies");
        auto next = replies_.front();
        replies_.pop_front();
        if (!next) return next.error();
        ChatReply reply;
        reply.text = *next;
        reply.finish_reason = finish_;
        reply.model = "fake-model";
        reply.usage = {1000, 200, 1.5, 0.01, false, true};
        return reply;
    }
    std::string describe() const override { return "fake"; }
    std::vector<ChatRequest> requests;

private:
    std::deque<kp::Result<std::string>> replies_;
    std::string finish_;
};

std::string analyst_reply_from_session() {
    auto records = load_recording(kp::llm::testing::fixture_path("session_openai.jsonl"));
    return (*records)[0].text;
}

struct Harness {
    std::shared_ptr<FakeChatClient> client;
    std::vector<LlmExchange> exchanges;
    LlmAgents agents;
};

std::unique_ptr<Harness> make_harness(std::deque<kp::Result<std::string>> replies, LlmAgentsOptions options = {},
                                      std::string finish = "stop") {
    auto client = std::make_shared<FakeChatClient>(std::move(replies), finish);
    auto agents = LlmAgents::create(client, options);
    EXPECT_TRUE(agents.ok()) << agents.error().message;
    auto harness = std::unique_ptr<Harness>(new Harness{client, {}, std::move(*agents)});
    Harness* h = harness.get();
    h->agents.set_exchange_sink([h](const LlmExchange& e) { h->exchanges.push_back(e); });
    return harness;
}

CoderInput coder_input() {
    return CoderInput{"softmax_rows_f32: row-wise softmax of a 16384 x 8192 fp32 matrix",
                      "One block per row; shared-memory reductions.",
                      {"uncoalesced loads at line 12", "atomics on one address"},
                      {},
                      "// the parent kernel\n"};
}

TEST(LlmAgents, CoderFillsTheTemplateAndExtractsTheKernel) {
    auto h = make_harness({fixture("coder_reply_text.md")});
    auto code = h->agents.coder(coder_input());
    ASSERT_TRUE(code.ok()) << code.error().message;
    EXPECT_NE(code->source.find("KP_EXPORT int kp_forward"), std::string::npos);
    ASSERT_EQ(code->tunables.size(), 1u);
    EXPECT_EQ(code->tunables[0].name, "BLOCK");
    EXPECT_NE(code->explanation.find("shared memory"), std::string::npos);

    ASSERT_EQ(h->client->requests.size(), 1u);
    const auto& messages = h->client->requests[0].messages;
    ASSERT_EQ(messages.size(), 2u);
    EXPECT_EQ(messages[0].role, "system");
    EXPECT_NE(messages[0].content.find("expert CUDA programmer"), std::string::npos);
    const std::string& user = messages[1].content;
    EXPECT_NE(user.find("softmax_rows_f32"), std::string::npos);
    EXPECT_NE(user.find("#define KP_ABI_VERSION 1"), std::string::npos);  // the real ABI header
    EXPECT_NE(user.find("1. uncoalesced loads at line 12\n2. atomics on one address"), std::string::npos);
    EXPECT_NE(user.find("## Lessons from earlier attempts\n(none)"), std::string::npos);
    EXPECT_EQ(user.find("{{"), std::string::npos);
    EXPECT_EQ(h->client->requests[0].purpose, "coder");

    ASSERT_EQ(h->exchanges.size(), 1u);
    const LlmExchange& e = h->exchanges[0];
    EXPECT_EQ(e.role, "coder");
    EXPECT_TRUE(e.ok);
    EXPECT_EQ(e.tokens_in, 1000);
    EXPECT_EQ(e.tokens_out, 200);
    EXPECT_DOUBLE_EQ(e.cost, 0.01);
    EXPECT_DOUBLE_EQ(e.latency_s, 1.5);
    EXPECT_EQ(e.model, "fake-model");
    EXPECT_EQ(e.prompt.rfind("[system]\n", 0), 0u);
    EXPECT_NE(e.prompt.find("\n[user]\n"), std::string::npos);
}

TEST(LlmAgents, MalformedReplyIsAskedAgainWithTheProblem) {
    auto h = make_harness({std::string("I would use shared memory."), fixture("coder_reply_text.md")});
    auto code = h->agents.coder(coder_input());
    ASSERT_TRUE(code.ok()) << code.error().message;
    ASSERT_EQ(h->client->requests.size(), 2u);
    const auto& second = h->client->requests[1].messages;
    ASSERT_EQ(second.size(), 4u);
    EXPECT_EQ(second[2].role, "assistant");
    EXPECT_EQ(second[2].content, "I would use shared memory.");
    EXPECT_EQ(second[3].role, "user");
    EXPECT_NE(second[3].content.find("could not be used: the reply has no code block"), std::string::npos)
        << second[3].content;
    ASSERT_EQ(h->exchanges.size(), 2u);
    EXPECT_FALSE(h->exchanges[0].ok);
    EXPECT_NE(h->exchanges[0].error.find("no code block"), std::string::npos);
    EXPECT_EQ(h->exchanges[0].attempt, 1);
    EXPECT_TRUE(h->exchanges[1].ok);
    EXPECT_EQ(h->exchanges[1].attempt, 2);
}

TEST(LlmAgents, RepeatedlyMalformedRepliesEndInAnErrorValue) {
    const std::string cut = fixture("coder_reply_text.md").substr(0, 400);
    auto h = make_harness({cut, cut, cut, cut});
    auto code = h->agents.coder(coder_input());
    ASSERT_FALSE(code.ok());
    EXPECT_NE(code.error().message.find("coder: 3 unusable replies; the last:"), std::string::npos)
        << code.error().message;
    EXPECT_EQ(h->client->requests.size(), 3u);
    EXPECT_EQ(h->exchanges.size(), 3u);
}

TEST(LlmAgents, ReplyCutByTheTokenLimitIsRetried) {
    LlmAgentsOptions options;
    options.malformed_reply_retries = 0;
    auto h = make_harness({std::string("```cuda\n#include <kernelpro/abi.h>\nKP_EXPORT int kp_forward() { return 0; }\n")},
                          options, "length");
    auto code = h->agents.coder(coder_input());
    ASSERT_FALSE(code.ok());
    EXPECT_NE(code.error().message.find("token limit"), std::string::npos) << code.error().message;
}

TEST(LlmAgents, FailedRequestsAreNotAskedAgain) {
    auto h = make_harness({kp::Result<std::string>(kp::make_error("gave up after 5 attempts: HTTP 503"))});
    auto code = h->agents.coder(coder_input());
    ASSERT_FALSE(code.ok());
    EXPECT_EQ(code.error().message, "coder: gave up after 5 attempts: HTTP 503");
    EXPECT_EQ(h->client->requests.size(), 1u);
    ASSERT_EQ(h->exchanges.size(), 1u);
    EXPECT_FALSE(h->exchanges[0].ok);
    EXPECT_TRUE(h->exchanges[0].reply.empty());
}

TEST(LlmAgents, AnalystReadsTheJsonPlan) {
    auto h = make_harness({analyst_reply_from_session()});
    AnalystInput input{"softmax", "memory-bound, 21% of DRAM peak", {"global atomics"}, {"float4 loads helped"},
                       "__global__ void k() {}", "3 candidates, best 1.2x"};
    auto plan = h->agents.analyst(input);
    ASSERT_TRUE(plan.ok()) << plan.error().message;
    EXPECT_EQ(plan->bottleneck, "global atomics serialize the row reduction");
    EXPECT_EQ(plan->steps.size(), 3u);
    ASSERT_TRUE(plan->expected_speedup);
    EXPECT_DOUBLE_EQ(*plan->expected_speedup, 3.0);
    const std::string text = format_plan(*plan);
    EXPECT_EQ(text.rfind("Bottleneck: global atomics", 0), 0u);
    EXPECT_NE(text.find("Steps:\n1. one block per row"), std::string::npos);
    const std::string& user = h->client->requests[0].messages[1].content;
    EXPECT_NE(user.find("- float4 loads helped"), std::string::npos);
    EXPECT_NE(user.find("3 candidates, best 1.2x"), std::string::npos);
    EXPECT_EQ(h->client->requests[0].max_tokens, 4096);
}

TEST(LlmAgents, AnalystFallsBackToAProsePlanButNotToNothing) {
    auto prose = parse_analyst_reply("Use one block per row and reduce in shared memory.");
    ASSERT_TRUE(prose.ok());
    EXPECT_EQ(prose->plan, "Use one block per row and reduce in shared memory.");
    EXPECT_FALSE(parse_analyst_reply("OK.").ok());
    EXPECT_FALSE(parse_analyst_reply("```json\n{\"steps\": []}\n```").ok());
}

TEST(LlmAgents, FixerGetsTrimmedDiagnostics) {
    auto h = make_harness({fixture("coder_reply_text.md")});
    FixerInput input{"softmax", "compile error",
                     "/tmp/kp-build-a1b2/candidate.cu(12): error: identifier \"BLOKC\" is undefined\n"
                     "/tmp/kp-build-a1b2/candidate.cu(12): error: identifier \"BLOKC\" is undefined\n",
                     "__global__ void k() { BLOKC; }"};
    auto code = h->agents.fixer(input);
    ASSERT_TRUE(code.ok()) << code.error().message;
    const std::string& user = h->client->requests[0].messages[1].content;
    EXPECT_NE(user.find("## What failed: compile error"), std::string::npos);
    const auto first = user.find("candidate.cu(12): error: identifier \"BLOKC\"");
    ASSERT_NE(first, std::string::npos) << user;
    EXPECT_EQ(user.find("candidate.cu(12)", first + 1), std::string::npos);  // the repeat is gone
    EXPECT_EQ(user.find("/tmp/"), std::string::npos);
    EXPECT_EQ(h->exchanges[0].role, "fixer");
}

TEST(LlmAgents, BudgetLimitRefusesBeforeAsking) {
    LlmAgentsOptions options;
    options.spend = std::make_shared<SpendTracker>();
    options.limit.max_cost = 0.5;
    Usage spent;
    spent.cost = 0.75;
    options.spend->add_reply(spent);
    auto h = make_harness({fixture("coder_reply_text.md")}, options);
    auto code = h->agents.coder(coder_input());
    ASSERT_FALSE(code.ok());
    EXPECT_NE(code.error().message.find("coder: not asking: LLM cost $0.7500 reached the $0.50 limit"),
              std::string::npos)
        << code.error().message;
    EXPECT_TRUE(h->client->requests.empty());
}

// End to end over HTTP: a reply without code, then a good one, for each provider.
TEST(LlmAgentsOverHttp, OpenAiMalformedThenGood) {
    ScriptedServer server({{200, fixture("openai_reply_no_code.json"), {}, 0ms},
                           {200, fixture("openai_coder_reply.json"), {}, 0ms}});
    LlmConfig config;
    config.spec = {"openai", "gpt-4.1"};
    config.base_url = server.base_url() + "/v1";
    auto spend = std::make_shared<SpendTracker>();
    auto agents =
        LlmAgents::create(std::make_shared<HttpChatClient>(config, make_openai_protocol(), PriceTable::defaults(), spend));
    ASSERT_TRUE(agents.ok()) << agents.error().message;
    auto code = agents->coder(coder_input());
    ASSERT_TRUE(code.ok()) << code.error().message;
    EXPECT_NE(code->source.find("softmax_rows"), std::string::npos);
    const auto received = server.received();
    ASSERT_EQ(received.size(), 2u);
    const auto body = nlohmann::json::parse(received[1].body);
    ASSERT_EQ(body["messages"].size(), 4u);
    EXPECT_NE(body["messages"][3]["content"].get<std::string>().find("could not be used"), std::string::npos);
    const Spend total = spend->snapshot();
    EXPECT_EQ(total.requests, 2);
    EXPECT_EQ(total.tokens_in, 2841 * 2);
    EXPECT_EQ(total.tokens_out, 41 + 912);
    EXPECT_NEAR(total.cost, (2841 * 2 * 2.0 + (41 + 912) * 8.0) / 1e6, 1e-12);
}

TEST(LlmAgentsOverHttp, AnthropicTruncatedThenGood) {
    ScriptedServer server({{200, fixture("anthropic_reply_truncated.json"), {}, 0ms},
                           {200, fixture("anthropic_coder_reply.json"), {}, 0ms}});
    LlmConfig config;
    config.spec = {"anthropic", "claude-sonnet-4"};
    config.base_url = server.base_url();
    config.api_key = "ak";
    std::vector<LlmExchange> exchanges;
    LlmAgentsOptions options;
    options.on_exchange = [&](const LlmExchange& e) { exchanges.push_back(e); };
    auto agents = LlmAgents::create(
        std::make_shared<HttpChatClient>(config, make_anthropic_protocol(), PriceTable::defaults(), nullptr), options);
    ASSERT_TRUE(agents.ok());
    auto code = agents->coder(coder_input());
    ASSERT_TRUE(code.ok()) << code.error().message;
    ASSERT_EQ(exchanges.size(), 2u);
    EXPECT_NE(exchanges[0].error.find("token limit"), std::string::npos) << exchanges[0].error;
    EXPECT_EQ(exchanges[0].tokens_out, 4096);
    // Anthropic wants alternating turns: user, assistant (the cut reply), user (the note).
    const auto body = nlohmann::json::parse(server.received()[1].body);
    ASSERT_EQ(body["messages"].size(), 3u);
    EXPECT_EQ(body["messages"][1]["role"], "assistant");
    EXPECT_TRUE(body.contains("system"));
}

// A run recorded once replays to the same results, with every prompt checked against the recording.
TEST(LlmAgentsReplay, RecordedRunReplaysIdentically) {
    auto dir = kp::make_temp_directory("kp-agents-replay");
    ASSERT_TRUE(dir.ok());
    const auto path = *dir / "run.jsonl";
    AnalystInput analyst_input{"softmax", "memory-bound", {"atomics"}, {}, "__global__ void k() {}", ""};
    CandidateCode first_code;
    {
        auto fake = std::make_shared<FakeChatClient>(std::deque<kp::Result<std::string>>{
            analyst_reply_from_session(), std::string("no code, sorry"), fixture("coder_reply_text.md")});
        auto recorder = ExchangeRecorder::open(path);
        ASSERT_TRUE(recorder.ok());
        auto agents = LlmAgents::create(std::make_shared<RecordingChatClient>(fake, *recorder));
        ASSERT_TRUE(agents.ok());
        auto plan = agents->analyst(analyst_input);
        ASSERT_TRUE(plan.ok());
        auto code = agents->coder({"softmax", format_plan(*plan), {"atomics"}, {}, "__global__ void k() {}"});
        ASSERT_TRUE(code.ok()) << code.error().message;
        first_code = *code;
    }
    auto replay = ReplayClient::open(path);
    ASSERT_TRUE(replay.ok()) << replay.error().message;
    std::shared_ptr<ReplayClient> replay_client = std::move(*replay);
    auto agents = LlmAgents::create(replay_client);
    ASSERT_TRUE(agents.ok());
    auto plan = agents->analyst(analyst_input);
    ASSERT_TRUE(plan.ok()) << plan.error().message;
    auto code = agents->coder({"softmax", format_plan(*plan), {"atomics"}, {}, "__global__ void k() {}"});
    ASSERT_TRUE(code.ok()) << code.error().message;
    EXPECT_EQ(code->source, first_code.source);
    EXPECT_EQ(replay_client->remaining(), 0u);
    // A different question is caught, not answered with the wrong reply.
    auto extra = agents->analyst(analyst_input);
    ASSERT_FALSE(extra.ok());
    EXPECT_NE(extra.error().message.find("exhausted"), std::string::npos);
    std::filesystem::remove_all(*dir);
}

}  // namespace
