// The writer's tool loop end to end, for both providers: the coder's request offers the
// code-search tools, a local HTTP server answers with a recorded tool-call reply, kernelpro runs
// the calls on a real index and sends the results back in the provider's format, and the next
// recorded reply holds the kernel. Also: the per-proposal bound on tool calls, and a recording
// that replays the same calls with the same results (and fails loudly when the tree changed).
#include <gtest/gtest.h>

#include "codesearch/code_search_tools.h"
#include "fixture_tree.h"
#include "llm/exchange_recording.h"
#include "llm/http_chat_client.h"
#include "llm/llm_agents.h"
#include "llm/replay_client.h"
#include "../llm/scripted_server.h"

using namespace kp;
using namespace kp::llm;
using kp::codesearch::testing::FixtureTree;
using kp::llm::testing::fixture;
using kp::llm::testing::ScriptedResponse;
using kp::llm::testing::ScriptedServer;
using namespace std::chrono_literals;

namespace {

struct ProviderCase {
    std::string provider;
    std::unique_ptr<ChatProtocol> (*protocol)();
    std::string model;
    std::string tool_call_fixture;
    std::string code_fixture;
    std::vector<std::string> call_ids;  // what tool_call_fixture's calls are named
};

void PrintTo(const ProviderCase& c, std::ostream* os) { *os << c.provider; }

// Counts the calls that reach the tools, to check the bound.
class CountingTools final : public ToolBox {
public:
    explicit CountingTools(std::shared_ptr<ToolBox> inner) : inner_(std::move(inner)) {}
    const std::vector<ToolDefinition>& definitions() const override { return inner_->definitions(); }
    ToolResult run(const ToolCall& call) override {
        ++runs;
        return inner_->run(call);
    }
    int runs = 0;

private:
    std::shared_ptr<ToolBox> inner_;
};

class ToolCallRoundTrip : public ::testing::TestWithParam<ProviderCase> {
protected:
    std::shared_ptr<CountingTools> tools() {
        auto opened = codesearch::open_code_search_tools(tree_.root, {tree_.cache});
        EXPECT_TRUE(opened.ok()) << (opened.ok() ? "" : opened.error().message);
        return std::make_shared<CountingTools>(*opened);
    }

    std::shared_ptr<ChatClient> http_client(const ScriptedServer& server) {
        LlmConfig config;
        config.spec = {GetParam().provider, GetParam().model};
        config.base_url = server.base_url() + (GetParam().provider == "openai" ? "/v1" : "");
        config.api_key = "sk-test";
        config.timeout = 5000ms;
        config.retry.max_retries = 0;
        return std::make_shared<HttpChatClient>(config, GetParam().protocol(), PriceTable::defaults(), nullptr);
    }

    LlmAgents agents(std::shared_ptr<ChatClient> client, std::shared_ptr<ToolBox> tools, int max_tool_calls,
                     const std::string& coder_prompt = "coder.md") {
        LlmAgentsOptions options;
        options.tools = std::move(tools);
        options.max_tool_calls = max_tool_calls;
        options.coder_prompt = coder_prompt;
        options.on_exchange = [this](const LlmExchange& e) { exchanges_.push_back(e); };
        auto made = LlmAgents::create(std::move(client), options);
        EXPECT_TRUE(made.ok()) << (made.ok() ? "" : made.error().message);
        return std::move(made).value();
    }

    static CoderInput coder_input() { return {"gemm_bf16: C = A @ B", "use TMA loads", {}, {}, "// parent kernel\n"}; }

    ScriptedResponse reply(const std::string& name) const { return {200, fixture(name), {}, 0ms}; }

    // The tool results a request sends back, by call id, in the provider's own format.
    std::map<std::string, std::string> tool_results_sent(const nlohmann::json& body) const {
        std::map<std::string, std::string> results;
        for (const auto& m : body["messages"]) {
            if (GetParam().provider == "openai") {
                if (m["role"] == "tool") results[m["tool_call_id"]] = m["content"];
            } else if (m["role"] == "user" && m["content"].is_array()) {
                for (const auto& block : m["content"])
                    if (block["type"] == "tool_result") results[block["tool_use_id"]] = block["content"];
            }
        }
        return results;
    }

    std::vector<std::string> tool_names_offered(const nlohmann::json& body) const {
        std::vector<std::string> names;
        for (const auto& t : body["tools"])
            names.push_back(GetParam().provider == "openai" ? t["function"]["name"] : t["name"]);
        return names;
    }

    FixtureTree tree_;
    std::vector<LlmExchange> exchanges_;
};

TEST_P(ToolCallRoundTrip, ToolResultsGoBackInTheProvidersFormatThenTheCodeComes) {
    ScriptedServer server({reply(GetParam().tool_call_fixture), reply(GetParam().code_fixture)});
    auto counting = tools();
    auto writer = agents(http_client(server), counting, 12, "coder_cute.md");
    auto code = writer.coder(coder_input());
    ASSERT_TRUE(code.ok()) << code.error().message;
    EXPECT_NE(code->source.find("kp_forward"), std::string::npos);
    EXPECT_EQ(counting->runs, 2);

    const auto received = server.received();
    ASSERT_EQ(received.size(), 2u);
    const auto first = nlohmann::json::parse(received[0].body);
    const auto second = nlohmann::json::parse(received[1].body);
    EXPECT_EQ(tool_names_offered(first), (std::vector<std::string>{"search_code", "list_files", "read_file"}));
    EXPECT_FALSE(first.contains("tool_choice"));
    EXPECT_TRUE(tool_results_sent(first).empty());
    EXPECT_NE(first.dump().find("CuTe"), std::string::npos);  // the cute coder's prompt

    // The second request repeats the model's calls and answers each with what the tools say.
    const auto results = tool_results_sent(second);
    ASSERT_EQ(results.size(), 2u);
    auto direct = codesearch::open_code_search_tools(tree_.root, {tree_.cache});
    ASSERT_TRUE(direct.ok());
    const std::string search_text =
        (*direct)->run({"", "search_code", {{"pattern", "make_tma_copy"}, {"path", "include/cute"}}}).text;
    EXPECT_EQ(results.at(GetParam().call_ids[0]), search_text);
    EXPECT_NE(results.at(GetParam().call_ids[1]).find("    5| auto make_tma_copy"), std::string::npos);
    if (GetParam().provider == "openai") {
        const auto& assistant = second["messages"][second["messages"].size() - 3];
        EXPECT_EQ(assistant["role"], "assistant");
        EXPECT_TRUE(assistant["content"].is_null());
        EXPECT_EQ(assistant["tool_calls"][0]["function"]["arguments"],
                  nlohmann::json({{"path", "include/cute"}, {"pattern", "make_tma_copy"}}).dump());
    } else {
        const auto& assistant = second["messages"][second["messages"].size() - 2];
        EXPECT_EQ(assistant["content"][0]["text"], "Let me look up make_tma_copy first.");
        EXPECT_EQ(assistant["content"][1]["type"], "tool_use");
        EXPECT_EQ(assistant["content"][1]["input"]["pattern"], "make_tma_copy");
    }

    // Both exchanges reach the store's sink; the first carries the calls and their results.
    ASSERT_EQ(exchanges_.size(), 2u);
    ASSERT_EQ(exchanges_[0].tool_calls.size(), 2u);
    EXPECT_EQ(exchanges_[0].tool_calls[0]["name"], "search_code");
    EXPECT_EQ(exchanges_[0].tool_calls[0]["result"], search_text);
    EXPECT_EQ(exchanges_[0].tool_calls[0]["ran"], true);
    EXPECT_TRUE(exchanges_[1].tool_calls.empty());
    EXPECT_TRUE(exchanges_[1].ok);
}

TEST_P(ToolCallRoundTrip, TheBoundOnToolCallsPerProposalIsEnforced) {
    // The model asks for two calls a turn, three turns in a row, then writes the kernel.
    ScriptedServer server({reply(GetParam().tool_call_fixture), reply(GetParam().tool_call_fixture),
                           reply(GetParam().tool_call_fixture), reply(GetParam().code_fixture)});
    auto counting = tools();
    auto writer = agents(http_client(server), counting, 3);
    auto code = writer.coder(coder_input());
    ASSERT_TRUE(code.ok()) << code.error().message;
    EXPECT_EQ(counting->runs, 3);  // two, then one; the fourth call is refused unrun

    const auto received = server.received();
    ASSERT_EQ(received.size(), 4u);
    auto choice = [&](std::size_t i) { return nlohmann::json::parse(received[i].body).value("tool_choice", nlohmann::json()); };
    const nlohmann::json none = GetParam().provider == "openai" ? nlohmann::json("none") : nlohmann::json({{"type", "none"}});
    EXPECT_TRUE(choice(0).is_null());
    EXPECT_TRUE(choice(1).is_null());
    EXPECT_EQ(choice(2), none);  // spent: the model is told to answer in text
    EXPECT_EQ(choice(3), none);

    ASSERT_EQ(exchanges_.size(), 4u);
    EXPECT_EQ(exchanges_[1].tool_calls[0]["ran"], true);
    EXPECT_EQ(exchanges_[1].tool_calls[1]["ran"], false);
    EXPECT_NE(exchanges_[1].tool_calls[1]["result"].get<std::string>().find("not run"), std::string::npos);
    // Calling tools after the bound is an unusable reply, asked again like any malformed one.
    EXPECT_FALSE(exchanges_[2].ok);
    EXPECT_NE(exchanges_[2].error.find("after this proposal's 3 tool calls were spent"), std::string::npos);
    EXPECT_EQ(exchanges_[3].attempt, 2);
    EXPECT_TRUE(exchanges_[3].ok);
}

TEST_P(ToolCallRoundTrip, AModelThatNeverStopsCallingToolsCostsTheProposalNotTheRun) {
    std::vector<ScriptedResponse> endless(8, reply(GetParam().tool_call_fixture));
    ScriptedServer server(endless);
    auto counting = tools();
    auto writer = agents(http_client(server), counting, 2);
    auto code = writer.coder(coder_input());
    ASSERT_FALSE(code.ok());
    EXPECT_NE(code.error().message.find("unusable replies"), std::string::npos) << code.error().message;
    EXPECT_EQ(counting->runs, 2);
    EXPECT_EQ(server.received().size(), 4u);  // one turn of calls, then three refused attempts
}

TEST_P(ToolCallRoundTrip, ARecordingReplaysTheSameToolCallsAndResults) {
    auto recording = tree_.scratch.path() / "exchanges.jsonl";
    {
        ScriptedServer server({reply(GetParam().tool_call_fixture), reply(GetParam().code_fixture)});
        auto recorder = ExchangeRecorder::open(recording);
        ASSERT_TRUE(recorder.ok());
        auto writer = agents(std::make_shared<RecordingChatClient>(http_client(server), *recorder), tools(), 12);
        ASSERT_TRUE(writer.coder(coder_input()).ok());
    }
    const auto live = exchanges_;
    exchanges_.clear();

    auto replay = ReplayClient::open(recording);
    ASSERT_TRUE(replay.ok()) << replay.error().message;
    auto counting = tools();
    auto writer = agents(std::shared_ptr<ChatClient>(std::move(*replay)), counting, 12);
    auto code = writer.coder(coder_input());
    ASSERT_TRUE(code.ok()) << code.error().message;
    EXPECT_EQ(counting->runs, 2);  // the calls ran again, and their results matched the recorded request
    ASSERT_EQ(exchanges_.size(), live.size());
    for (std::size_t i = 0; i < live.size(); ++i) {
        EXPECT_EQ(exchanges_[i].tool_calls, live[i].tool_calls);
        EXPECT_EQ(exchanges_[i].prompt, live[i].prompt);
    }

    // The tree changed since the recording: the replayed results differ, and replay says so.
    codesearch::testing::write(tree_.root / "include/cute/atom/copy_traits_sm90_tma.hpp", "// make_tma_copy moved\n");
    auto again = ReplayClient::open(recording);
    ASSERT_TRUE(again.ok());
    auto changed = agents(std::shared_ptr<ChatClient>(std::move(*again)), tools(), 12);
    auto refused = changed.coder(coder_input());
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("does not match the recording"), std::string::npos) << refused.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    Providers, ToolCallRoundTrip,
    ::testing::Values(ProviderCase{"openai", make_openai_protocol, "gpt-4.1", "openai_tool_call_reply.json",
                                   "openai_coder_reply.json", {"call_search_1", "call_read_2"}},
                      ProviderCase{"anthropic", make_anthropic_protocol, "claude-sonnet-4", "anthropic_tool_use_reply.json",
                                   "anthropic_coder_reply.json", {"toolu_search_1", "toolu_read_2"}}),
    [](const auto& info) { return info.param.provider; });

}  // namespace
