// The single-shot-rewrite objective's mechanics, with a chat client standing in for the model and
// verdicts replayed from a file (what `--judge gpu` records on the GPU): the coder sees the tree's
// feedback and the start kernel, each (kernel, feedback) is asked once, the speedup is the judged
// start over the judged rewrite, and a rewrite that fails or never came scores 1.
#include <gtest/gtest.h>

#include <deque>
#include <fstream>

#include <nlohmann/json.hpp>

#include "agents/llm_proposer.h"
#include "autoprofiler/single_shot_rewrite.h"
#include "autoprofiler/tree_evaluation.h"
#include "autoprofiler/tuning_record.h"
#include "search/proposers/parameter_space.h"

namespace kp::autoprofiler {
namespace {

namespace fs = std::filesystem;

class PromptRecorder : public llm::ChatClient {
public:
    explicit PromptRecorder(std::deque<std::string> replies) : replies_(std::move(replies)) {}
    Result<llm::ChatReply> complete(const llm::ChatRequest& request) override {
        prompts.push_back(request.messages.empty() ? "" : request.messages.back().content);
        if (replies_.empty()) return make_error("script exhausted");
        llm::ChatReply reply;
        reply.text = replies_.front();
        replies_.pop_front();
        reply.finish_reason = "stop";
        reply.model = "recorder";
        return reply;
    }
    std::string describe() const override { return "recorder"; }
    std::vector<std::string> prompts;

private:
    std::deque<std::string> replies_;
};

const char* kStart = "// kp:tune BLOCK=128,256\n#ifndef BLOCK\n#define BLOCK 128\n#endif\n#include <kernelpro/abi.h>\n"
                     "__global__ void start_kernel(const float* x, float* y) {}\n"
                     "KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t s) { return 0; }\n";

std::string code_reply(const std::string& marker) {
    return "A faster version.\n```cuda\n#include <kernelpro/abi.h>\n// kp:tune BLOCK=128,256\n// " + marker +
           "\n__global__ void k(const float4* x, float4* y) {}\n"
           "KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t s) { return 0; }\n```\n";
}

KernelRecord start_kernel() {
    auto table = std::make_shared<TuningTable>();
    table->task = "synthetic_copy";
    table->source = kStart;
    table->start = {{"BLOCK", "256"}};
    search::EvaluationOutcome start;
    start.median_seconds = 1e-4;
    table->by_point[search::point_text(table->start)] = start;
    KernelRecord k;
    k.name = "synthetic_copy@default";
    k.expect = "";
    k.tuning = std::move(table);
    return k;
}

// The candidate the objective builds from a code reply: its source, the start's values kept.
search::Candidate rewrite_of(const std::string& reply, const KernelRecord& k) {
    auto code = llm::parse_code_reply(reply, false);
    EXPECT_TRUE(code) << (code ? "" : code.error().message);
    return {code->source, agents::carry_parameters(k.tuning->start, code->tunables, code->source)};
}

struct Fixture {
    fs::path dir = fs::temp_directory_path() / ("kp_rewrite_" + std::to_string(::getpid()) + "_" +
                                                ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::path verdicts = dir / "verdicts.jsonl";
    Fixture() { fs::create_directories(dir); }
    ~Fixture() { fs::remove_all(dir); }
    void add(const KernelRecord& k, const search::Candidate& c, bool correct, double seconds, const std::string& message = "") const {
        std::ofstream(verdicts, std::ios::app) << nlohmann::json{{"key", rewrite_key(k, c)}, {"kernel", k.name}, {"correct", correct},
                                                                 {"median_seconds", seconds}, {"message", message}}.dump()
                                               << "\n";
    }
};

std::shared_ptr<const llm::LlmAgents> agents_for(std::shared_ptr<PromptRecorder> client) {
    auto agents = llm::LlmAgents::create(std::move(client));
    if (!agents) throw std::runtime_error(agents.error().message);
    return std::make_shared<const llm::LlmAgents>(std::move(*agents));
}

TreeOutcome with_feedback(std::string text) {
    TreeOutcome o;
    o.feedback = std::move(text);
    o.cost = {0.5, 2};
    return o;
}

}  // namespace

TEST(SingleShotRewrite, TheCoderSeesTheFeedbackOnceAndTheJudgedSpeedupScores) {
    Fixture f;
    const auto k = start_kernel();
    const std::string fast = code_reply("vectorized"), wrong = code_reply("wrong results");
    f.add(k, {k.tuning->source, k.tuning->start}, true, 1e-4);
    f.add(k, rewrite_of(fast, k), true, 4e-5);
    f.add(k, rewrite_of(wrong, k), false, 0, "incorrect: max error 3.2");
    auto client = std::make_shared<PromptRecorder>(std::deque<std::string>{fast, wrong, "I would rather not."});
    auto judge = recorded_rewrite_judge(f.verdicts);
    ASSERT_TRUE(judge) << judge.error().message;
    SingleShotRewrite objective(agents_for(client), *judge);

    auto first = objective.rewrite(k, "narrow_global_access: loads of 4 bytes at line 6");
    ASSERT_TRUE(first) << first.error().message;
    EXPECT_TRUE(first->correct);
    EXPECT_NEAR(first->speedup, 2.5, 1e-9);
    ASSERT_EQ(client->prompts.size(), 1u);
    // The coder's prompt: the start kernel, its parameter values and the tree's feedback.
    EXPECT_NE(client->prompts[0].find("narrow_global_access: loads of 4 bytes at line 6"), std::string::npos) << client->prompts[0];
    EXPECT_NE(client->prompts[0].find("start_kernel"), std::string::npos);
    EXPECT_NE(client->prompts[0].find("-DBLOCK=256"), std::string::npos);
    // The same feedback again: no second call, the same outcome.
    auto again = objective.rewrite(k, "narrow_global_access: loads of 4 bytes at line 6");
    ASSERT_TRUE(again);
    EXPECT_EQ(client->prompts.size(), 1u);
    EXPECT_EQ(again->key, first->key);
    // Other feedback is another rewrite: this one computes the wrong thing and scores 1.
    auto failed = objective.rewrite(k, "no finding");
    ASSERT_TRUE(failed);
    EXPECT_FALSE(failed->correct);
    EXPECT_EQ(failed->speedup, 1.0);
    EXPECT_NE(failed->message.find("max error"), std::string::npos);
    // A reply without code is no rewrite: 1, and nothing judged.
    auto none = objective.rewrite(k, "");
    ASSERT_TRUE(none);
    EXPECT_TRUE(none->key.empty());
    EXPECT_EQ(none->speedup, 1.0);
    EXPECT_EQ(objective.llm_calls(), 3);

    // score(): log2 of the geometric mean over the kernels, less the cost share.
    Budget budget;
    budget.passes = 4;
    auto s = objective.score({k, k}, {with_feedback("narrow_global_access: loads of 4 bytes at line 6"), with_feedback("no finding")}, budget);
    EXPECT_TRUE(s.error.empty()) << s.error;
    EXPECT_EQ(s.tuned, 2);
    EXPECT_EQ(s.rewritten, 1);
    EXPECT_NEAR(s.tuner_speedup, std::sqrt(2.5), 1e-9);
    EXPECT_NEAR(s.value, 0.5 * std::log2(2.5) - 0.05 * 0.5, 1e-9);
    EXPECT_EQ(objective.llm_calls(), 3);  // all asked before
}

TEST(SingleShotRewrite, AVerdictNeverRecordedIsAnErrorNamingTheRewrite) {
    Fixture f;
    const auto k = start_kernel();
    f.add(k, {k.tuning->source, k.tuning->start}, true, 1e-4);
    auto client = std::make_shared<PromptRecorder>(std::deque<std::string>{code_reply("never judged")});
    auto judge = recorded_rewrite_judge(f.verdicts);
    ASSERT_TRUE(judge) << judge.error().message;
    SingleShotRewrite objective(agents_for(client), *judge);
    auto s = objective.score({k}, {with_feedback("anything")}, {});
    ASSERT_FALSE(s.error.empty());
    EXPECT_NE(s.error.find(rewrite_key(k, rewrite_of(code_reply("never judged"), k))), std::string::npos) << s.error;
    EXPECT_NE(s.error.find("--judge gpu"), std::string::npos) << s.error;
}

TEST(SingleShotRewrite, RecordedVerdictsRoundTripAndBadLinesNameTheirLine) {
    Fixture f;
    const auto k = start_kernel();
    class Fixed : public RewriteJudge {
    public:
        std::string describe() const override { return "fixed"; }
        Result<RewriteVerdict> judge(const KernelRecord&, const search::Candidate& c) override {
            return RewriteVerdict{c.source.find("slow") == std::string::npos, 2e-5, ""};
        }
    };
    auto recording = recording_rewrite_judge(std::make_shared<Fixed>(), f.verdicts);
    const search::Candidate a{"fast kernel", {{"BLOCK", "256"}}}, b{"slow kernel", {{"BLOCK", "256"}}};
    ASSERT_TRUE(recording->judge(k, a));
    ASSERT_TRUE(recording->judge(k, b));
    auto replay = recorded_rewrite_judge(f.verdicts);
    ASSERT_TRUE(replay) << replay.error().message;
    auto va = (*replay)->judge(k, a), vb = (*replay)->judge(k, b);
    ASSERT_TRUE(va && vb);
    EXPECT_TRUE(va->correct);
    EXPECT_DOUBLE_EQ(va->median_seconds, 2e-5);
    EXPECT_FALSE(vb->correct);
    // The same source at other parameters is another rewrite.
    EXPECT_FALSE((*replay)->judge(k, {"fast kernel", {{"BLOCK", "128"}}}));

    std::ofstream(f.verdicts, std::ios::app) << "{\"key\": 3}\n";
    auto bad = recorded_rewrite_judge(f.verdicts);
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find(f.verdicts.string() + ":3:"), std::string::npos) << bad.error().message;
    EXPECT_FALSE(recorded_rewrite_judge(f.dir / "missing.jsonl"));
}

}  // namespace kp::autoprofiler
