// The LLM proposer's routing (analyst + coder for correct nodes, fixer for failed ones), with a
// scripted chat client standing in for the model.
#include <gtest/gtest.h>

#include <deque>

#include "agents/llm_proposer.h"
#include "search/objective.h"

using namespace kp;

namespace {

class ScriptedClient : public llm::ChatClient {
public:
    explicit ScriptedClient(std::deque<std::string> replies) : replies_(std::move(replies)) {}
    Result<llm::ChatReply> complete(const llm::ChatRequest& request) override {
        purposes.push_back(request.purpose);
        last_prompt = request.messages.empty() ? "" : request.messages.back().content;
        prompts.push_back(last_prompt);
        if (replies_.empty()) return make_error("script exhausted");
        llm::ChatReply reply;
        reply.text = replies_.front();
        replies_.pop_front();
        reply.finish_reason = "stop";
        reply.model = "scripted";
        reply.usage.tokens_in = 100;
        reply.usage.tokens_out = 50;
        return reply;
    }
    std::string describe() const override { return "scripted"; }
    std::vector<std::string> purposes;
    std::string last_prompt;
    std::vector<std::string> prompts;

private:
    std::deque<std::string> replies_;
};

const char* kPlan = "```json\n{\"bottleneck\": \"scalar loads\", \"plan\": \"use float4 loads\", \"steps\": [\"vectorize\"], \"expected_speedup\": 1.5}\n```\n";
const char* kCode = "Here is the kernel.\n```cuda\n#include \"kernelpro/abi.h\"\n// kp:tune BLOCK=128,256\n"
                    "__global__ void k(const float* x, float* y) {}\n"
                    "KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t s) { return 0; }\n```\n";

std::shared_ptr<llm::LlmAgents> make_agents(std::shared_ptr<ScriptedClient> client) {
    auto agents = llm::LlmAgents::create(client);
    EXPECT_TRUE(agents.ok()) << (agents.ok() ? "" : agents.error().message);
    return std::make_shared<llm::LlmAgents>(std::move(*agents));
}

search::ProposalRequest request_for(search::StatusClass status, const std::string& message) {
    search::ProposalRequest r;
    r.node.node_id = 3;
    r.node.candidate.source = "// parent kernel\n";
    r.node.candidate.params = {{"BLOCK", "256"}, {"OLD", "1"}};
    search::EvaluationOutcome e;
    e.status = status;
    e.message = message;
    e.roofline_class = "memory_bound";
    e.findings.push_back(kp::analysis::make_finding("narrow_global_access", 0.3, "loads at line 12 are 4 bytes wide",
                                                    kp::analysis::wider_accesses(kp::analysis::Rewrite::vectorize_accesses)));
    r.node.evaluation = e;
    return r;
}

}  // namespace

TEST(LlmProposer, CorrectNodeGoesThroughAnalystThenCoder) {
    auto client = std::make_shared<ScriptedClient>(std::deque<std::string>{kPlan, kCode});
    agents::LlmProposer proposer(make_agents(client), "task: copy");
    auto batch = proposer.propose(request_for(search::StatusClass::ok, ""));
    ASSERT_TRUE(batch.ok()) << batch.error().message;
    ASSERT_EQ(batch->proposals.size(), 1u);
    EXPECT_EQ(client->purposes, (std::vector<std::string>{"analyst", "coder"}));
    EXPECT_EQ(batch->proposals[0].kind, search::ProposalKind::rewrite);
    EXPECT_NE(batch->proposals[0].candidate.source.find("kp_forward"), std::string::npos);
    // BLOCK is still declared and keeps the parent's value; OLD is gone.
    EXPECT_EQ(batch->proposals[0].candidate.params, (search::ParameterValues{{"BLOCK", "256"}}));
    EXPECT_NE(batch->proposals[0].rationale.find("scalar loads"), std::string::npos);
    // The coder sees the finding's typed remedies, not just its prose.
    EXPECT_NE(client->last_prompt.find("tunables: vector_width up"), std::string::npos) << client->last_prompt;
    ASSERT_EQ(batch->exchanges.size(), 2u);
    EXPECT_EQ(batch->exchanges[0].agent, "analyst");
    EXPECT_EQ(batch->exchanges[1].tokens_out, 50);
}

// Under the energy objective the analyst is told so, with the node's energy next to its time.
TEST(LlmProposer, TheAnalystIsToldTheObjectiveAndTheEnergyEvidence) {
    auto client = std::make_shared<ScriptedClient>(std::deque<std::string>{kPlan, kCode});
    agents::LlmProposer proposer(make_agents(client), "task: copy");
    auto request = request_for(search::StatusClass::ok, "");
    request.node.evaluation->median_seconds = 40e-6;
    request.node.evaluation->joules_per_call = 12e-3;
    request.node.evaluation->details["energy"] = {{"average_watts", 300.0}, {"sm_clock_mhz", 1755}, {"idle_watts", 110.0}};
    request.objective = {"energy", 0.02};
    request.objective_note = search::objective_note(request.objective, *request.node.evaluation);
    ASSERT_TRUE(proposer.propose(request).ok());
    ASSERT_FALSE(client->prompts.empty());
    const std::string& analyst = client->prompts.front();
    for (const char* part : {"objective: energy", "within 2.0% of the fastest", "time 40.00 us per call", "energy 12 mJ per call",
                             "300 W while running", "SM clock 1755 MHz", "(idle 110 W)"})
        EXPECT_NE(analyst.find(part), std::string::npos) << part << " missing from:\n" << analyst;
}

TEST(LlmProposer, FailedNodeGoesToTheFixerWithItsDiagnostics) {
    auto client = std::make_shared<ScriptedClient>(std::deque<std::string>{kCode});
    agents::LlmProposer proposer(make_agents(client), "task: copy");
    auto batch = proposer.propose(request_for(search::StatusClass::compile_error, "candidate.cu(4): error: identifier \"q\" is undefined"));
    ASSERT_TRUE(batch.ok());
    ASSERT_EQ(batch->proposals.size(), 1u);
    EXPECT_EQ(client->purposes, (std::vector<std::string>{"fixer"}));
    EXPECT_NE(client->last_prompt.find("identifier \"q\" is undefined"), std::string::npos);
    EXPECT_NE(batch->proposals[0].rationale.find("compile error"), std::string::npos);
}

TEST(LlmProposer, UnusableRepliesCostTheProposalNotTheRun) {
    auto client = std::make_shared<ScriptedClient>(std::deque<std::string>{"no json here", "still nothing", "nope"});
    agents::LlmProposer proposer(make_agents(client), "task: copy");
    auto batch = proposer.propose(request_for(search::StatusClass::ok, ""));
    ASSERT_TRUE(batch.ok());
    EXPECT_TRUE(batch->proposals.empty());
    EXPECT_EQ(batch->exchanges.size(), 3u);  // the first ask plus two retries, all recorded
}

TEST(LlmProposer, NoRewritesWantedMeansNoCalls) {
    auto client = std::make_shared<ScriptedClient>(std::deque<std::string>{});
    agents::LlmProposer proposer(make_agents(client), "task");
    auto r = request_for(search::StatusClass::ok, "");
    r.rewrites_wanted = false;
    auto batch = proposer.propose(r);
    ASSERT_TRUE(batch.ok());
    EXPECT_TRUE(batch->proposals.empty());
    EXPECT_TRUE(client->purposes.empty());
}

// A new version's tunables start where the tuner would start them: a parent's value the new
// source still declares, else the source's own #define default when declared, else the first value.
TEST(LlmProposer, NewTunablesStartAtTheSourcesDefault) {
    const std::string source =
        "// kp:tune TILE_N=128,256\n// kp:tune CLUSTER=1,2\n// kp:tune VEC=1,2\n"
        "#ifndef TILE_N\n#define TILE_N 256\n#endif\n#ifndef VEC\n#define VEC 4   // not a declared value\n#endif\n";
    const std::vector<kp::llm::TunableDeclaration> declared{{"TILE_N", {"128", "256"}, 1}, {"CLUSTER", {"1", "2"}, 2}, {"VEC", {"1", "2"}, 3}};
    auto fresh = kp::agents::carry_parameters({}, declared, source);
    EXPECT_EQ(fresh, (kp::search::ParameterValues{{"TILE_N", "256"}, {"CLUSTER", "1"}, {"VEC", "1"}}));
    auto carried = kp::agents::carry_parameters({{"TILE_N", "128"}, {"CLUSTER", "3"}, {"GONE", "7"}}, declared, source);
    EXPECT_EQ(carried, (kp::search::ParameterValues{{"TILE_N", "128"}, {"CLUSTER", "1"}, {"VEC", "1"}}));
}
