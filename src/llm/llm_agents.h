// The three LLM roles of the closed loop, as plain calls the search loop makes:
//   analyst: profiling evidence -> a plan;  coder: plan -> the next candidate;
//   fixer:   a failing candidate + diagnostics -> a repaired candidate.
// Each fills its template from prompts/, asks the client, and extracts what the loop needs. A reply
// that cannot be used is asked again (prompts/malformed_reply.md) up to a limit; every reply, used
// or not, is handed to the exchange sink for the run store.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "llm/chat_client.h"
#include "llm/code_extraction.h"
#include "llm/diagnostics_trim.h"
#include "llm/pricing.h"
#include "llm/prompt_template.h"

namespace kp::llm {

// One request/reply, as the run store keeps it.
struct LlmExchange {
    std::string role;        // "analyst", "coder", "fixer"
    std::string prompt;      // the whole conversation sent, "[system]\n...\n\n[user]\n..."
    std::string reply;       // reply text ("" when the request failed)
    std::int64_t tokens_in = 0;
    std::int64_t tokens_out = 0;
    double latency_s = 0.0;
    double cost = 0.0;
    bool ok = false;         // the reply was usable
    std::string error;       // why not, when !ok
    std::string model;
    int attempt = 1;         // 1 for the first ask, 2 after one malformed reply, ...
    // The reply's tool calls, each with what kernelpro answered: [{"id", "name", "arguments",
    // "result", "is_error", "ran"}] ("ran" false: refused, the proposal's bound was spent). Empty
    // array when the reply called no tool.
    nlohmann::json tool_calls = nlohmann::json::array();
};
using ExchangeSink = std::function<void(const LlmExchange&)>;

struct AnalystInput {
    std::string task;                   // task name and description, shapes, dtypes
    std::string roofline;               // roofline classifier summary
    std::vector<std::string> findings;  // ranked feedback text of the micro-profiling tools
    std::vector<std::string> lessons;   // search memory
    std::string source;                 // the kernel being analysed
    std::string history;                // short summary of what the search tried
};

struct AnalystPlan {
    std::string bottleneck;
    std::string plan;
    std::vector<std::string> steps;
    std::optional<double> expected_speedup;
    std::string reply;  // the full reply, for the store and the coder
};

struct CoderInput {
    std::string task;
    std::string plan;                   // usually AnalystPlan::plan plus its steps; see format_plan()
    std::vector<std::string> findings;
    std::vector<std::string> lessons;
    std::string source;                 // the parent kernel
};

struct FixerInput {
    std::string task;
    std::string failure_kind;           // "compile error", "wrong results", "crash", ...
    std::string diagnostics;            // raw; trimmed here
    std::string source;                 // the failing kernel
};

// The first version of a task that has no kernel yet (an imported PyTorch problem): the writer
// gets the PyTorch source, the tensors in ABI order (parameters by state_dict name), the floor.
struct WriterInput {
    std::string task;
    std::string pytorch_source;
    std::string tensors;
    std::string roofline;
};

struct CandidateCode {
    std::string source;
    std::vector<TunableDeclaration> tunables;
    std::string explanation;  // the reply's prose
    std::string reply;
};

struct LlmAgentsOptions {
    std::filesystem::path prompts_dir;   // empty: find_prompts_directory()
    std::filesystem::path abi_header;    // empty: locate_abi_header()
    int malformed_reply_retries = 2;     // asks after an unusable reply, per call
    int analyst_max_tokens = 4096;       // 0: the client's default
    int coder_max_tokens = 0;
    DiagnosticsLimits diagnostics;
    std::shared_ptr<SpendTracker> spend; // read for `limit` before each request; may be null
    SpendLimit limit;
    ExchangeSink on_exchange;            // may be empty
    // Function calling: offered to the coder and the fixer, which may call them (search the
    // CUTLASS/CuTe tree, ...) before writing the code. Null: no tools.
    std::shared_ptr<ToolBox> tools;
    int max_tool_calls = 12;             // per proposal: one coder or fixer call, its retries included
    std::string coder_prompt = "coder.md";  // the coder's template in prompts/ (coder_cute.md for CuTe)
};

class LlmAgents {
public:
    // Loads and checks all templates and the ABI header: a broken prompts/ folder fails here.
    static Result<LlmAgents> create(std::shared_ptr<ChatClient> client, LlmAgentsOptions options = {});

    Result<AnalystPlan> analyst(const AnalystInput& input) const;
    Result<CandidateCode> coder(const CoderInput& input) const;
    Result<CandidateCode> fixer(const FixerInput& input) const;
    // prompts/writer.md; an error when the prompts folder has none.
    Result<CandidateCode> writer(const WriterInput& input) const;

    void set_exchange_sink(ExchangeSink sink) { options_.on_exchange = std::move(sink); }
    const ChatClient& client() const { return *client_; }

private:
    LlmAgents(std::shared_ptr<ChatClient> client, LlmAgentsOptions options, PromptTemplate analyst,
              PromptTemplate coder, PromptTemplate fixer, PromptTemplate malformed, std::string abi);

    // Asks until `interpret` accepts a reply (malformed replies asked again); with `offer_tools`,
    // runs the tool calls of each reply and sends their results back, within max_tool_calls.
    template <typename T>
    Result<T> ask(const std::string& role, std::vector<ChatMessage> messages, int max_tokens, bool offer_tools,
                  const std::function<Result<T>(const ChatReply&)>& interpret) const;

    std::shared_ptr<ChatClient> client_;
    LlmAgentsOptions options_;
    PromptTemplate analyst_, coder_, fixer_, malformed_;
    std::optional<PromptTemplate> writer_;  // optional: only tasks without a kernel need it
    std::string abi_;
};

// The plan text a coder receives: the plan, then its steps as a numbered list.
std::string format_plan(const AnalystPlan& plan);

// Reads an analyst reply: the JSON block if there is one, else the whole reply as the plan.
Result<AnalystPlan> parse_analyst_reply(const std::string& reply);
// Reads a coder or fixer reply: the kernel, its tunables, the prose.
Result<CandidateCode> parse_code_reply(const std::string& reply, bool hit_token_limit);


}  // namespace kp::llm
