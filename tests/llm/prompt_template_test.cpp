#include <gtest/gtest.h>

#include "llm/llm_agents.h"
#include "llm/prompt_template.h"

using namespace kp::llm;

namespace {

PromptTemplate parse(const std::string& text) {
    auto t = PromptTemplate::parse(text, "t.md");
    EXPECT_TRUE(t.ok()) << t.error().message;
    return *t;
}

TEST(PromptTemplate, SectionsPlaceholdersAndComments) {
    auto t = parse(
        "<!-- notes for authors: dropped -->\n"
        "<!-- kp:system -->\n"
        "You are {{ persona }}.\n"
        "\n"
        "<!-- kp:user -->\n"
        "Task: {{task}} and {{task}} again.\n"
        "Code may hold {{1, 2}} and {{ not a name }} and {{unclosed\n");
    EXPECT_EQ(t.placeholders(), (std::set<std::string>{"persona", "task"}));
    auto messages = t.render({{"persona", "an expert"}, {"task", "softmax {{persona}}"}});
    ASSERT_TRUE(messages.ok()) << messages.error().message;
    ASSERT_EQ(messages->size(), 2u);
    EXPECT_EQ((*messages)[0].role, "system");
    EXPECT_EQ((*messages)[0].content, "You are an expert.\n");
    EXPECT_EQ((*messages)[1].role, "user");
    // Values are not re-scanned; non-placeholder braces are text.
    EXPECT_EQ((*messages)[1].content,
              "Task: softmax {{persona}} and softmax {{persona}} again.\n"
              "Code may hold {{1, 2}} and {{ not a name }} and {{unclosed\n");
}

TEST(PromptTemplate, WithoutMarkersEverythingIsUser) {
    auto t = parse("Hello {{name}}\n");
    auto messages = t.render({{"name", "x"}});
    ASSERT_TRUE(messages.ok());
    ASSERT_EQ(messages->size(), 1u);
    EXPECT_EQ((*messages)[0].role, "user");
    EXPECT_EQ((*messages)[0].content, "Hello x\n");
}

TEST(PromptTemplate, MissingAndUnknownValuesAreErrors) {
    auto t = parse("<!-- kp:user -->\nline two {{a}}\n{{b}}\n");
    auto missing = t.render({{"a", "1"}});
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().message, "t.md:3: no value for {{b}}");
    auto unknown = t.render({{"a", "1"}, {"b", "2"}, {"c", "3"}});
    ASSERT_FALSE(unknown.ok());
    EXPECT_NE(unknown.error().message.find("'c' was given, but the template has no {{c}}"), std::string::npos);
}

TEST(PromptTemplate, ExpectPlaceholdersCatchesEditedTemplates) {
    auto t = parse("{{task}} {{sorce}}\n");
    auto status = t.expect_placeholders({"task", "source"});
    ASSERT_FALSE(status.ok());
    EXPECT_NE(status.error().message.find("unknown placeholder {{sorce}}"), std::string::npos) << status.error().message;
    EXPECT_NE(status.error().message.find("missing placeholder {{source}}"), std::string::npos);
    EXPECT_TRUE(t.expect_placeholders({"task", "sorce"}).ok());
}

TEST(PromptTemplate, StructuralErrors) {
    auto expect_error = [](const std::string& text, const std::string& words) {
        auto t = PromptTemplate::parse(text, "t.md");
        ASSERT_FALSE(t.ok()) << text;
        EXPECT_NE(t.error().message.find(words), std::string::npos) << t.error().message;
    };
    expect_error("", "empty");
    expect_error("<!-- only a note -->\n", "empty");
    expect_error("stray text\n<!-- kp:system -->\nx\n", "t.md:1: text before the first");
    expect_error("<!-- kp:assistant -->\nx\n", "t.md:1: unknown marker");
    expect_error("<!-- kp:user -->\nu\n<!-- kp:system -->\ns\n", "system section must come first");
    EXPECT_NE(PromptTemplate::load("/nonexistent/coder.md").error().message.find("cannot read"), std::string::npos);
}

// The shipped prompts/ must load with exactly the placeholders the agents fill.
TEST(PromptTemplate, ShippedPromptsLoad) {
    struct Stub : ChatClient {
        kp::Result<ChatReply> complete(const ChatRequest&) override { return kp::make_error("unused"); }
        std::string describe() const override { return "stub"; }
    };
    auto agents = LlmAgents::create(std::make_shared<Stub>());
    ASSERT_TRUE(agents.ok()) << agents.error().message;
    for (const char* name : {"analyst.md", "coder.md", "fixer.md"}) {
        auto t = PromptTemplate::load(find_prompts_directory().value() / name);
        ASSERT_TRUE(t.ok()) << t.error().message;
        auto messages = t->render([&] {
            std::map<std::string, std::string> values;
            for (const auto& p : t->placeholders()) values[p] = "<" + p + ">";
            return values;
        }());
        ASSERT_TRUE(messages.ok()) << messages.error().message;
        ASSERT_EQ(messages->size(), 2u) << name;
        EXPECT_EQ((*messages)[0].role, "system");
        EXPECT_EQ((*messages)[0].content.find("<!--"), std::string::npos) << name;
    }
}

TEST(PromptTemplate, AgentsRejectAPromptsFolderWithABrokenTemplate) {
    struct Stub : ChatClient {
        kp::Result<ChatReply> complete(const ChatRequest&) override { return kp::make_error("unused"); }
        std::string describe() const override { return "stub"; }
    };
    LlmAgentsOptions options;
    options.prompts_dir = "/nonexistent/prompts";
    auto agents = LlmAgents::create(std::make_shared<Stub>(), options);
    ASSERT_FALSE(agents.ok());
    EXPECT_NE(agents.error().message.find("analyst.md"), std::string::npos) << agents.error().message;
}

}  // namespace
