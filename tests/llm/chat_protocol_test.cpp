// Wire formats without a socket: request bodies, endpoints, reply parsing, error bodies.
#include <gtest/gtest.h>

#include "llm/chat_protocol.h"
#include "scripted_server.h"

using namespace kp::llm;
using kp::llm::testing::fixture;

namespace {

ChatRequest conversation() {
    return ChatRequest{{{"system", "sys A"}, {"system", "sys B"}, {"user", "u1"}, {"user", "u2"}, {"assistant", "a1"},
                        {"user", "u3"}},
                       0,
                       -1,
                       "test"};
}

TEST(OpenAiProtocol, RequestKeepsMessagesAndSettings) {
    auto protocol = make_openai_protocol();
    auto body = protocol->build_request(conversation(), {"gpt-4.1", 1000, 0.3});
    EXPECT_EQ(body["model"], "gpt-4.1");
    EXPECT_EQ(body["messages"].size(), 6u);
    EXPECT_EQ(body["max_tokens"], 1000);
    EXPECT_DOUBLE_EQ(body["temperature"].get<double>(), 0.3);
    EXPECT_EQ(protocol->endpoint("http://h:1/v1/"), "http://h:1/v1/chat/completions");
    EXPECT_EQ(protocol->endpoint(protocol->default_base_url()), "https://api.openai.com/v1/chat/completions");
}

TEST(OpenAiProtocol, ReasoningModelsGetMaxCompletionTokensAndNoTemperature) {
    auto body = make_openai_protocol()->build_request(conversation(), {"o3-mini", 2000, 0.2});
    EXPECT_FALSE(body.contains("max_tokens"));
    EXPECT_EQ(body["max_completion_tokens"], 2000);
    EXPECT_FALSE(body.contains("temperature"));
}

TEST(OpenAiProtocol, ParsesRecordedReplyAndContentParts) {
    auto protocol = make_openai_protocol();
    auto reply = protocol->parse_reply(nlohmann::json::parse(fixture("openai_coder_reply.json")));
    ASSERT_TRUE(reply.ok()) << reply.error().message;
    EXPECT_EQ(reply->model, "gpt-4.1-2025-04-14");
    EXPECT_EQ(reply->finish_reason, "stop");
    EXPECT_EQ(*reply->tokens_in, 2841);
    EXPECT_EQ(*reply->tokens_out, 912);
    EXPECT_EQ(reply->text, fixture("coder_reply_text.md"));

    auto parts = protocol->parse_reply(nlohmann::json::parse(
        R"({"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}]})"));
    ASSERT_TRUE(parts.ok()) << parts.error().message;
    EXPECT_EQ(parts->text, "ab");
    EXPECT_FALSE(parts->tokens_in.has_value());
}

TEST(OpenAiProtocol, MalformedRepliesAreErrors) {
    auto protocol = make_openai_protocol();
    auto expect_error = [&](const char* body, const char* words) {
        auto r = protocol->parse_reply(nlohmann::json::parse(body));
        ASSERT_FALSE(r.ok()) << body;
        EXPECT_NE(r.error().message.find(words), std::string::npos) << r.error().message;
    };
    expect_error(fixture("openai_no_choices.json").c_str(), "no choices");
    expect_error(R"({"choices":[]})", "no choices");
    expect_error(R"({"choices":[{"finish_reason":"stop"}]})", "no message");
    expect_error(R"({"choices":[{"message":{"content":null}}]})", "no text content");
    expect_error(R"({"choices":[{"message":{"content":null,"refusal":"I can't help with that."}}]})", "refused");
    expect_error(R"([1,2])", "not a JSON object");
}

TEST(AnthropicProtocol, SystemIsSeparateAndTurnsAlternate) {
    auto protocol = make_anthropic_protocol();
    auto body = protocol->build_request(conversation(), {"claude-sonnet-4", 0, -1});
    EXPECT_EQ(body["system"], "sys A\n\nsys B");
    EXPECT_EQ(body["max_tokens"], 8192);  // required by the API, so never absent
    EXPECT_FALSE(body.contains("temperature"));
    ASSERT_EQ(body["messages"].size(), 3u);
    EXPECT_EQ(body["messages"][0]["content"], "u1\n\nu2");
    EXPECT_EQ(body["messages"][1]["role"], "assistant");
    EXPECT_EQ(protocol->endpoint("https://api.anthropic.com"), "https://api.anthropic.com/v1/messages");
    EXPECT_EQ(protocol->endpoint("https://proxy.example/v1/"), "https://proxy.example/v1/messages");
    auto headers = protocol->headers("key");
    EXPECT_NE(std::find(headers.begin(), headers.end(), std::pair<std::string, std::string>{"x-api-key", "key"}),
              headers.end());
}

TEST(AnthropicProtocol, ParsesRecordedRepliesAndCountsCachedInput) {
    auto protocol = make_anthropic_protocol();
    auto reply = protocol->parse_reply(nlohmann::json::parse(fixture("anthropic_coder_reply.json")));
    ASSERT_TRUE(reply.ok()) << reply.error().message;
    EXPECT_EQ(reply->model, "claude-sonnet-4-20250514");
    EXPECT_EQ(reply->finish_reason, "end_turn");
    EXPECT_EQ(*reply->tokens_in, 2903);
    EXPECT_EQ(*reply->tokens_out, 1017);

    auto cached = protocol->parse_reply(nlohmann::json::parse(
        R"({"content":[{"type":"thinking","thinking":"..."},{"type":"text","text":"hi"}],
            "usage":{"input_tokens":10,"cache_read_input_tokens":90,"output_tokens":5}})"));
    ASSERT_TRUE(cached.ok());
    EXPECT_EQ(cached->text, "hi");
    EXPECT_EQ(*cached->tokens_in, 100);

    auto truncated = protocol->parse_reply(nlohmann::json::parse(fixture("anthropic_reply_truncated.json")));
    ASSERT_TRUE(truncated.ok());
    EXPECT_EQ(truncated->finish_reason, "max_tokens");
}

TEST(AnthropicProtocol, MalformedRepliesAreErrors) {
    auto protocol = make_anthropic_protocol();
    EXPECT_FALSE(protocol->parse_reply(nlohmann::json::parse(R"({"id":"msg"})")).ok());
    EXPECT_FALSE(protocol->parse_reply(nlohmann::json::parse(R"({"content":[]})")).ok());
    auto error = protocol->parse_reply(nlohmann::json::parse(fixture("anthropic_overloaded.json")));
    ASSERT_FALSE(error.ok());
    EXPECT_NE(error.error().message.find("overloaded_error: Overloaded"), std::string::npos);
}

TEST(ErrorBodies, BothProvidersAndPlainText) {
    EXPECT_EQ(describe_error_body(fixture("anthropic_overloaded.json")), "overloaded_error: Overloaded");
    EXPECT_EQ(describe_error_body(fixture("openai_server_error.json")).rfind("server_error: The server had an error", 0), 0u);
    EXPECT_EQ(describe_error_body(R"({"error":"model not found"})"), "model not found");  // Ollama's form
    EXPECT_EQ(describe_error_body("Bad\nGateway"), "Bad Gateway");
    EXPECT_EQ(describe_error_body(""), "(empty body)");
    EXPECT_EQ(describe_error_body(std::string(1000, 'x')).size(), 303u);
}

}  // namespace

namespace {

// A turn that called a tool, its result, and a note after it (what the agents send after a reply
// that called tools past the bound).
ChatRequest tool_conversation() {
    ChatRequest request{{{"system", "sys"}, {"user", "write it"}}, 0, -1, "coder"};
    ChatMessage turn{"assistant", ""};
    turn.tool_calls = {{"call_1", "search_code", {{"pattern", "make_tma_copy"}}},
                       {"call_2", "read_file", nlohmann::json("{\"path\": broken")}};
    request.messages.push_back(turn);
    ChatMessage result{"tool", "3 matching lines"};
    result.tool_call_id = "call_1";
    request.messages.push_back(result);
    ChatMessage refusal{"tool", "error: the arguments are not a JSON object"};
    refusal.tool_call_id = "call_2";
    refusal.is_error = true;
    request.messages.push_back(refusal);
    request.messages.push_back({"user", "now the code"});
    request.tools = {{"search_code", "search", {{"type", "object"}}}};
    request.allow_tool_calls = false;
    return request;
}

}  // namespace

TEST(OpenAiProtocol, ToolTurnsAndResultsInItsWireFormat) {
    auto body = make_openai_protocol()->build_request(tool_conversation(), {"gpt-4.1", 100, 0.2});
    EXPECT_EQ(body["tools"][0], nlohmann::json::parse(R"({"type":"function","function":{"name":"search_code",
        "description":"search","parameters":{"type":"object"}}})"));
    EXPECT_EQ(body["tool_choice"], "none");
    const auto& messages = body["messages"];
    ASSERT_EQ(messages.size(), 6u);
    EXPECT_TRUE(messages[2]["content"].is_null());
    EXPECT_EQ(messages[2]["tool_calls"][0]["function"]["arguments"], R"({"pattern":"make_tma_copy"})");
    EXPECT_EQ(messages[2]["tool_calls"][1]["function"]["arguments"], "{\"path\": broken");  // sent back as it came
    EXPECT_EQ(messages[3], nlohmann::json({{"role", "tool"}, {"tool_call_id", "call_1"}, {"content", "3 matching lines"}}));
    EXPECT_EQ(messages[5]["role"], "user");

    // Arguments that are not JSON come back as the string they were; a reply of calls alone is a reply.
    auto reply = make_openai_protocol()->parse_reply(nlohmann::json::parse(R"({"choices":[{"message":{"role":"assistant",
        "content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"read_file","arguments":"{oops"}}]},
        "finish_reason":"tool_calls"}]})"));
    ASSERT_TRUE(reply.ok()) << reply.error().message;
    EXPECT_EQ(reply->finish_reason, "tool_calls");
    ASSERT_EQ(reply->tool_calls.size(), 1u);
    EXPECT_EQ(reply->tool_calls[0].arguments, nlohmann::json("{oops"));
}

TEST(AnthropicProtocol, ToolTurnsAndResultsInItsWireFormat) {
    auto body = make_anthropic_protocol()->build_request(tool_conversation(), {"claude-sonnet-4", 100, 0.2});
    EXPECT_EQ(body["tools"][0], nlohmann::json::parse(R"({"name":"search_code","description":"search","input_schema":{"type":"object"}})"));
    EXPECT_EQ(body["tool_choice"], nlohmann::json({{"type", "none"}}));
    const auto& messages = body["messages"];
    ASSERT_EQ(messages.size(), 3u);  // user, assistant (tool_use), user (both results and the note)
    EXPECT_EQ(messages[1]["content"][0]["type"], "tool_use");
    EXPECT_EQ(messages[1]["content"][0]["input"]["pattern"], "make_tma_copy");
    EXPECT_EQ(messages[1]["content"][1]["input"], nlohmann::json::object());  // broken arguments: an empty input
    const auto& results = messages[2]["content"];
    ASSERT_EQ(results.size(), 3u);
    EXPECT_EQ(results[0], nlohmann::json({{"type", "tool_result"}, {"tool_use_id", "call_1"}, {"content", "3 matching lines"}}));
    EXPECT_EQ(results[1]["is_error"], true);
    EXPECT_EQ(results[2], nlohmann::json({{"type", "text"}, {"text", "now the code"}}));
}
