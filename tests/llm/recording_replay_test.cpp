// Recording exchanges to JSONL and serving them back: round trip through a real HTTP exchange,
// the fixture session, and the loud failures (mismatch, exhaustion, bad files).
#include <gtest/gtest.h>

#include <fstream>

#include "common/files.h"
#include "llm/client_factory.h"
#include "llm/exchange_recording.h"
#include "llm/http_chat_client.h"
#include "llm/replay_client.h"
#include "scripted_server.h"

using namespace kp::llm;
using kp::llm::testing::fixture;
using kp::llm::testing::fixture_path;
using kp::llm::testing::ScriptedServer;
using namespace std::chrono_literals;

namespace {

class TempDir {
public:
    TempDir() : path_(*kp::make_temp_directory("kp-llm-rec")) {}
    ~TempDir() { std::filesystem::remove_all(path_); }
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

ChatRequest ask(const std::string& text, const std::string& purpose = "coder") {
    return ChatRequest{{{"system", "You write CUDA."}, {"user", text}}, 0, -1, purpose};
}

TEST(Recording, RecordThenReplayRoundTrip) {
    TempDir dir;
    const auto path = dir.path() / "run" / "llm.jsonl";
    ScriptedServer server({{200, fixture("openai_coder_reply.json"), {}, 0ms},
                           {503, fixture("openai_server_error.json"), {}, 0ms},
                           {200, fixture("openai_coder_reply.json"), {}, 0ms},
                           {401, fixture("openai_invalid_key.json"), {}, 0ms}});
    std::vector<ChatReply> live;
    std::string live_error;
    {
        LlmConfig config;
        config.spec = {"openai", "gpt-4.1"};
        config.base_url = server.base_url() + "/v1";
        config.api_key = "sk-never-recorded";
        config.retry.initial_backoff = 1ms;
        config.record_path = path;
        auto client = make_chat_client(config, nullptr);
        ASSERT_TRUE(client.ok()) << client.error().message;
        auto first = (*client)->complete(ask("first"));
        auto second = (*client)->complete(ask("second"));  // a 503, then the reply
        auto third = (*client)->complete(ask("third"));    // a 401: recorded as an error
        ASSERT_TRUE(first.ok() && second.ok()) << (first.ok() ? second.error().message : first.error().message);
        ASSERT_FALSE(third.ok());
        live = {*first, *second};
        live_error = third.error().message;
    }
    const std::string text = *kp::read_text_file(path);
    EXPECT_EQ(text.find("sk-never-recorded"), std::string::npos);

    auto records = load_recording(path);
    ASSERT_TRUE(records.ok()) << records.error().message;
    ASSERT_EQ(records->size(), 3u);
    EXPECT_EQ((*records)[1].attempts, 2);
    EXPECT_EQ((*records)[0].request["messages"][1]["content"], "first");
    EXPECT_EQ((*records)[0].reply["id"], "chatcmpl-BkT7x2dQm9aPzL4vR8nY1cW3eF5gH");
    ASSERT_TRUE((*records)[2].error.has_value());

    auto spend = std::make_shared<SpendTracker>();
    auto replay = ReplayClient::open(path, {}, spend);
    ASSERT_TRUE(replay.ok()) << replay.error().message;
    for (int i = 0; i < 2; ++i) {
        auto again = (*replay)->complete(ask(i == 0 ? "first" : "second"));
        ASSERT_TRUE(again.ok()) << again.error().message;
        EXPECT_EQ(again->text, live[i].text);
        EXPECT_EQ(again->usage.tokens_in, live[i].usage.tokens_in);
        EXPECT_DOUBLE_EQ(again->usage.cost, live[i].usage.cost);
        EXPECT_EQ(again->finish_reason, live[i].finish_reason);
        EXPECT_EQ(again->raw_reply, live[i].raw_reply);
    }
    auto error = (*replay)->complete(ask("third"));
    ASSERT_FALSE(error.ok());
    EXPECT_EQ(error.error().message, live_error);
    EXPECT_EQ(spend->snapshot().requests, 2);
    EXPECT_EQ(spend->snapshot().failed_requests, 1);
    EXPECT_NEAR(spend->snapshot().cost, live[0].usage.cost + live[1].usage.cost, 1e-12);
}

TEST(Replay, ServesTheFixtureSessionInOrderThenIsExhausted) {
    auto replay = ReplayClient::open(fixture_path("session_openai.jsonl"), {false});
    ASSERT_TRUE(replay.ok()) << replay.error().message;
    EXPECT_EQ((*replay)->remaining(), 3u);
    auto analyst = (*replay)->complete(ask("anything", "analyst"));
    ASSERT_TRUE(analyst.ok()) << analyst.error().message;
    EXPECT_NE(analyst->text.find("\"bottleneck\""), std::string::npos);
    EXPECT_EQ(analyst->usage.tokens_in, 1520);
    auto coder = (*replay)->complete(ask("anything"));
    ASSERT_TRUE(coder.ok());
    EXPECT_NE(coder->text.find("kp_forward"), std::string::npos);
    auto failed = (*replay)->complete(ask("anything"));
    ASSERT_FALSE(failed.ok());
    EXPECT_NE(failed.error().message.find("HTTP 503"), std::string::npos);
    auto exhausted = (*replay)->complete(ask("one more", "fixer"));
    ASSERT_FALSE(exhausted.ok());
    EXPECT_NE(exhausted.error().message.find("exhausted: all 3 recorded exchanges were served"), std::string::npos)
        << exhausted.error().message;
    EXPECT_NE(exhausted.error().message.find("fixer"), std::string::npos);
}

TEST(Replay, AResumedRunSkipsTheExchangesItUsed) {
    auto replay = ReplayClient::open(fixture_path("session_openai.jsonl"), {false});
    ASSERT_TRUE(replay.ok()) << replay.error().message;
    (*replay)->skip_served({"analyst", "coder"});  // in order, whatever the purpose
    EXPECT_EQ((*replay)->remaining(), 1u);
    auto third = (*replay)->complete(ask("anything"));
    ASSERT_FALSE(third.ok());
    EXPECT_NE(third.error().message.find("HTTP 503"), std::string::npos);
    (*replay)->skip_served({"coder", "coder"});  // past the end: nothing left, no harm
    EXPECT_EQ((*replay)->remaining(), 0u);
}

TEST(Replay, MismatchNamesTheLineAndTheDifference) {
    auto replay = ReplayClient::open(fixture_path("session_openai.jsonl"));
    ASSERT_TRUE(replay.ok());
    ChatRequest request{{{"system", "You are a senior GPU performance engineer."},
                         {"user", "Roofline: compute-bound, 21% of DRAM peak. Findings: 1. global atomics."}},
                        0,
                        -1,
                        "analyst"};
    auto r = (*replay)->complete(request);
    ASSERT_FALSE(r.ok());
    const std::string& message = r.error().message;
    EXPECT_NE(message.find("session_openai.jsonl:1 (exchange 1)"), std::string::npos) << message;
    EXPECT_NE(message.find("message 2 (user) differs at character 11"), std::string::npos) << message;
    EXPECT_EQ((*replay)->served(), 0u);  // a mismatch does not consume the exchange

    request.messages.pop_back();
    auto fewer = (*replay)->complete(request);
    ASSERT_FALSE(fewer.ok());
    EXPECT_NE(fewer.error().message.find("1 messages asked, 2 recorded"), std::string::npos) << fewer.error().message;
}

TEST(Replay, BadFilesAreClearErrors) {
    TempDir dir;
    EXPECT_NE(ReplayClient::open(dir.path() / "missing.jsonl").error().message.find("cannot read"), std::string::npos);

    std::ofstream(dir.path() / "empty.jsonl") << "\n\n";
    EXPECT_NE(ReplayClient::open(dir.path() / "empty.jsonl").error().message.find("holds no exchanges"),
              std::string::npos);

    const std::string good = fixture("session_openai.jsonl").substr(0, fixture("session_openai.jsonl").find('\n'));
    std::ofstream(dir.path() / "bad.jsonl") << good << "\n{not json\n";
    auto bad = load_recording(dir.path() / "bad.jsonl");
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find("bad.jsonl:2: not valid JSON"), std::string::npos) << bad.error().message;

    std::ofstream(dir.path() / "old.jsonl") << R"({"v":0,"messages":[],"text":"x"})" << "\n";
    EXPECT_NE(load_recording(dir.path() / "old.jsonl").error().message.find("old.jsonl:1: unsupported record version"),
              std::string::npos);

    std::ofstream(dir.path() / "hollow.jsonl") << R"({"v":1,"messages":[{"role":"user","content":"x"}]})" << "\n";
    EXPECT_NE(load_recording(dir.path() / "hollow.jsonl").error().message.find("record has neither \"text\""),
              std::string::npos);
}

TEST(Replay, FactoryPrefersReplayAndCanRecordIt) {
    TempDir dir;
    LlmConfig config;
    config.replay_path = fixture_path("session_openai.jsonl");
    config.record_path = dir.path() / "copy.jsonl";
    auto client = make_chat_client(config, nullptr);
    ASSERT_TRUE(client.ok()) << client.error().message;
    EXPECT_NE((*client)->describe().find("replay of"), std::string::npos);
    auto records = load_recording(fixture_path("session_openai.jsonl"));
    ASSERT_TRUE(records.ok());
    ChatRequest request{(*records)[0].messages, 0, -1, "analyst"};
    ASSERT_TRUE((*client)->complete(request).ok());
    auto copy = load_recording(dir.path() / "copy.jsonl");
    ASSERT_TRUE(copy.ok()) << copy.error().message;
    ASSERT_EQ(copy->size(), 1u);
    EXPECT_EQ((*copy)[0].text, (*records)[0].text);
}

}  // namespace
