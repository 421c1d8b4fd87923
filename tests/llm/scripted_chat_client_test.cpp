// The script provider: replies per role in file order, an exhausted role as an error value, bad
// lines named, and a resumed run skipping the replies it already used.
#include <gtest/gtest.h>

#include <fstream>

#include "common/files.h"
#include "llm/client_factory.h"
#include "llm/scripted_chat_client.h"

using namespace kp::llm;

namespace {

struct Script {
    Script(const std::string& text) : dir(kp::ScratchDirectory::create("kp-script").value()), path(dir.path() / "s.jsonl") {
        std::ofstream(path) << text;
    }
    kp::ScratchDirectory dir;
    std::filesystem::path path;
};

const char* kTwoRoles = R"({"role": "analyst", "reply": "plan 1"}
{"role": "coder", "reply": "code 1"}

{"role": "analyst", "reply": "plan 2"}
{"role": "coder", "reply": "code 2"}
)";

std::string ask(ChatClient& client, const std::string& role) {
    auto reply = client.complete({{{"user", "x"}}, 0, -1, role});
    return reply ? reply->text : "error: " + reply.error().message;
}

}  // namespace

TEST(ScriptedChatClient, ServesEachRoleInFileOrderThenSaysItIsExhausted) {
    Script script(kTwoRoles);
    auto client = ScriptedChatClient::open(script.path);
    ASSERT_TRUE(client) << client.error().message;
    EXPECT_EQ(ask(**client, "coder"), "code 1");
    EXPECT_EQ(ask(**client, "analyst"), "plan 1");
    EXPECT_EQ(ask(**client, "analyst"), "plan 2");
    EXPECT_EQ(ask(**client, "analyst"), "error: the LLM script has no more replies for the analyst");
    EXPECT_EQ(ask(**client, "fixer"), "error: the LLM script has no more replies for the fixer");
    EXPECT_EQ((*client)->served(), 3u);
}

TEST(ScriptedChatClient, AResumedRunSkipsTheRepliesItUsed) {
    Script script(kTwoRoles);
    auto client = ScriptedChatClient::open(script.path);
    ASSERT_TRUE(client);
    (*client)->skip_served({"analyst", "coder", "analyst"});
    EXPECT_EQ(ask(**client, "coder"), "code 2");
    EXPECT_EQ(ask(**client, "analyst"), "error: the LLM script has no more replies for the analyst");
}

TEST(ScriptedChatClient, IsTheScriptProviderOfTheFactory) {
    Script script(kTwoRoles);
    LlmConfig config;
    config.spec = *parse_provider_spec("script:" + script.path.string());
    auto client = make_chat_client(config, nullptr);
    ASSERT_TRUE(client) << client.error().message;
    EXPECT_EQ((*client)->describe(), "script " + script.path.string());
    EXPECT_EQ(ask(**client, "coder"), "code 1");
}

TEST(ScriptedChatClient, BadScriptsAreClearErrors) {
    EXPECT_EQ(ScriptedChatClient::open("/nonexistent/s.jsonl").error().message,
              "cannot read LLM script /nonexistent/s.jsonl");
    Script empty("\n\n");
    EXPECT_EQ(ScriptedChatClient::open(empty.path).error().message, empty.path.string() + ": the script has no replies");
    Script bad("{\"role\": \"coder\", \"reply\": \"ok\"}\n{\"role\": \"coder\"}\n");
    auto opened = ScriptedChatClient::open(bad.path);
    ASSERT_FALSE(opened);
    EXPECT_EQ(opened.error().message.rfind(bad.path.string() + ":2: expected {\"role\": ..., \"reply\": ...}", 0), 0u)
        << opened.error().message;
}

TEST(ScriptedChatClient, ALineMayCallToolsInsteadOfReplying) {
    Script script(R"({"role": "coder", "tool_calls": [{"name": "search_code", "arguments": {"pattern": "tma"}}]}
{"role": "coder", "reply": "code 1"}
)");
    auto client = ScriptedChatClient::open(script.path);
    ASSERT_TRUE(client.ok()) << client.error().message;
    auto turn = (*client)->complete({{{"user", "x"}}, 0, -1, "coder"});
    ASSERT_TRUE(turn.ok());
    EXPECT_TRUE(turn->text.empty());
    EXPECT_EQ(turn->finish_reason, "tool_calls");
    ASSERT_EQ(turn->tool_calls.size(), 1u);
    EXPECT_EQ(turn->tool_calls[0], (ToolCall{"call_coder_1_1", "search_code", {{"pattern", "tma"}}}));
    EXPECT_EQ((*client)->complete({{{"user", "x"}}, 0, -1, "coder"})->text, "code 1");

    Script bad(R"({"role": "coder", "tool_calls": [{"arguments": {}}]})");
    auto refused = ScriptedChatClient::open(bad.path);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("s.jsonl:1: a tool call needs a string field \"name\""), std::string::npos)
        << refused.error().message;
}
