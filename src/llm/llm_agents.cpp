#include "llm/llm_agents.h"

#include <fmt/format.h>

#include "common/files.h"
#include "common/resource_locator.h"
#include "common/utf8.h"

namespace kp::llm {

namespace fs = std::filesystem;

namespace {

const std::set<std::string> kAnalystPlaceholders{"task", "roofline", "findings", "lessons", "source", "history"};
const std::set<std::string> kCoderPlaceholders{"task", "abi", "plan", "findings", "lessons", "source"};
const std::set<std::string> kFixerPlaceholders{"task", "abi", "failure_kind", "diagnostics", "source"};
const std::set<std::string> kMalformedPlaceholders{"problem"};
const std::set<std::string> kWriterPlaceholders{"task", "abi", "pytorch", "tensors", "roofline"};

constexpr std::size_t kMaxExplanationChars = 4000;

Result<PromptTemplate> load_checked(const fs::path& dir, const std::string& file, const std::set<std::string>& names) {
    auto loaded = PromptTemplate::load(dir / file);
    if (!loaded) return loaded.error();
    auto checked = loaded->expect_placeholders(names);
    if (!checked) return checked.error();
    return loaded;
}

std::string or_none(const std::string& text) { return text.find_first_not_of(" \t\r\n") == std::string::npos ? "(none)" : text; }

std::string numbered(const std::vector<std::string>& items) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) out += fmt::format("{}. {}\n", i + 1, items[i]);
    return or_none(out);
}

std::string bulleted(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items) out += "- " + item + "\n";
    return or_none(out);
}

// Tool calls and results are written out too, so the stored prompt shows what the model read.
std::string conversation_text(const std::vector<ChatMessage>& messages) {
    std::string out;
    for (const auto& m : messages) {
        const std::string header = m.role == "tool" ? "[tool result " + m.tool_call_id + (m.is_error ? ", error]" : "]")
                                                    : "[" + m.role + "]";
        out += (out.empty() ? "" : "\n") + header + "\n" + m.content;
        for (const auto& call : m.tool_calls)
            out += (m.content.empty() ? "" : "\n") + ("[tool call " + call.id + "] " + call.name + " " + dump_json(call.arguments));
    }
    return out;
}

std::string string_field(const nlohmann::json& j, const char* key) {
    return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

}  // namespace

std::string format_plan(const AnalystPlan& plan) {
    std::string out = plan.plan;
    if (!plan.bottleneck.empty()) out = "Bottleneck: " + plan.bottleneck + "\n\n" + out;
    if (!plan.steps.empty()) out += "\n\nSteps:\n" + numbered(plan.steps);
    return out;
}

Result<AnalystPlan> parse_analyst_reply(const std::string& reply) {
    AnalystPlan plan;
    plan.reply = reply;
    if (auto j = extract_json_object(reply); j && !string_field(*j, "plan").empty()) {
        plan.plan = string_field(*j, "plan");
        plan.bottleneck = string_field(*j, "bottleneck");
        if (j->contains("steps") && (*j)["steps"].is_array())
            for (const auto& step : (*j)["steps"])
                if (step.is_string()) plan.steps.push_back(step.get<std::string>());
        if (j->contains("expected_speedup") && (*j)["expected_speedup"].is_number())
            plan.expected_speedup = (*j)["expected_speedup"].get<double>();
        return plan;
    }
    // No JSON plan: a prose plan is still a plan, if there is one.
    const std::string prose = prose_outside_code_blocks(reply);
    if (prose.size() < 20) return make_error("the reply holds no plan (expected a ```json block with \"plan\")");
    plan.plan = prose;
    return plan;
}

Result<CandidateCode> parse_code_reply(const std::string& reply, bool hit_token_limit) {
    auto kernel = extract_kernel_source(reply, hit_token_limit);
    if (!kernel) return kernel.error();
    auto tunables = parse_tunables(kernel->source);
    if (!tunables) return make_error("bad tunable declaration in the kernel: " + tunables.error().message);
    CandidateCode code{std::move(kernel->source), std::move(*tunables), prose_outside_code_blocks(reply), reply};
    if (code.explanation.size() > kMaxExplanationChars) code.explanation.resize(kMaxExplanationChars);
    return code;
}

LlmAgents::LlmAgents(std::shared_ptr<ChatClient> client, LlmAgentsOptions options, PromptTemplate analyst,
                     PromptTemplate coder, PromptTemplate fixer, PromptTemplate malformed, std::string abi)
    : client_(std::move(client)),
      options_(std::move(options)),
      analyst_(std::move(analyst)),
      coder_(std::move(coder)),
      fixer_(std::move(fixer)),
      malformed_(std::move(malformed)),
      abi_(std::move(abi)) {}

Result<LlmAgents> LlmAgents::create(std::shared_ptr<ChatClient> client, LlmAgentsOptions options) {
    if (!client) return make_error("LlmAgents: no chat client");
    auto prompts = find_prompts_directory(options.prompts_dir);
    if (!prompts) return make_error("LlmAgents: " + prompts.error().message);
    const fs::path& dir = *prompts;
    auto analyst = load_checked(dir, "analyst.md", kAnalystPlaceholders);
    if (!analyst) return analyst.error();
    auto coder = load_checked(dir, options.coder_prompt, kCoderPlaceholders);
    if (!coder) return coder.error();
    auto fixer = load_checked(dir, "fixer.md", kFixerPlaceholders);
    if (!fixer) return fixer.error();
    auto malformed = load_checked(dir, "malformed_reply.md", kMalformedPlaceholders);
    if (!malformed) return malformed.error();
    auto abi_path = options.abi_header.empty() ? locate_abi_header() : Result<fs::path>(options.abi_header);
    if (!abi_path) return make_error("LlmAgents: " + abi_path.error().message);
    auto abi = read_text_file(*abi_path);
    if (!abi) return make_error("LlmAgents: the ABI header: " + abi.error().message);
    LlmAgents agents(std::move(client), std::move(options), std::move(*analyst), std::move(*coder), std::move(*fixer),
                     std::move(*malformed), std::move(*abi));
    if (fs::is_regular_file(dir / "writer.md")) {
        auto writer = load_checked(dir, "writer.md", kWriterPlaceholders);
        if (!writer) return writer.error();
        agents.writer_ = std::move(*writer);
    }
    return agents;
}

template <typename T>
Result<T> LlmAgents::ask(const std::string& role, std::vector<ChatMessage> messages, int max_tokens, bool offer_tools,
                         const std::function<Result<T>(const ChatReply&)>& interpret) const {
    const bool tools = offer_tools && options_.tools != nullptr;
    int tool_calls_left = tools ? std::max(options_.max_tool_calls, 0) : 0;
    std::string last_problem;
    const int attempts = 1 + std::max(options_.malformed_reply_retries, 0);
    for (int attempt = 1; attempt <= attempts;) {
        if (options_.spend) {
            if (auto over = exceeded_limit(options_.spend->snapshot(), options_.limit))
                return make_error(role + ": not asking: " + *over);
        }
        ChatRequest request{messages, max_tokens, -1.0, role};
        if (tools) {
            request.tools = options_.tools->definitions();
            request.allow_tool_calls = tool_calls_left > 0;  // spent: the model must answer with the code
        }
        auto reply = client_->complete(request);
        LlmExchange exchange;
        exchange.role = role;
        exchange.prompt = conversation_text(messages);
        exchange.attempt = attempt;
        if (!reply) {
            // The client already retried what can be retried; asking again here would not help.
            exchange.error = reply.error().message;
            if (options_.on_exchange) options_.on_exchange(exchange);
            return make_error(role + ": " + reply.error().message);
        }
        exchange.reply = reply->text;
        exchange.tokens_in = reply->usage.tokens_in;
        exchange.tokens_out = reply->usage.tokens_out;
        exchange.latency_s = reply->usage.latency_s;
        exchange.cost = reply->usage.cost;
        exchange.model = reply->model;

        Result<T> value = make_error("no reply");
        bool answered_in_history = false;
        if (tools && !reply->tool_calls.empty()) {
            // Each call gets its result (or its refusal) in the history: both APIs want an answer
            // to every call before the conversation goes on.
            ChatMessage turn{"assistant", reply->text};
            turn.tool_calls = reply->tool_calls;
            messages.push_back(std::move(turn));
            for (const auto& call : reply->tool_calls) {
                const bool run = tool_calls_left > 0;
                ToolResult result = run ? options_.tools->run(call)
                                        : ToolResult{fmt::format("error: not run: this proposal's {} tool calls are spent; "
                                                                 "reply with the complete kernel now",
                                                                 options_.max_tool_calls),
                                                     true};
                if (run) --tool_calls_left;
                ChatMessage answer{"tool", result.text};
                answer.tool_call_id = call.id;
                answer.is_error = result.is_error;
                messages.push_back(std::move(answer));
                exchange.tool_calls.push_back({{"id", call.id},
                                               {"name", call.name},
                                               {"arguments", call.arguments},
                                               {"result", result.text},
                                               {"is_error", result.is_error},
                                               {"ran", run}});
            }
            answered_in_history = true;
            if (request.allow_tool_calls) {  // the model is still looking: not an attempt at the code
                exchange.ok = true;
                if (options_.on_exchange) options_.on_exchange(exchange);
                continue;
            }
            value = make_error(fmt::format("the reply called tools again after this proposal's {} tool calls were spent",
                                           options_.max_tool_calls));
        } else {
            value = interpret(*reply);
        }
        exchange.ok = value.ok();
        if (!value) exchange.error = value.error().message;
        if (options_.on_exchange) options_.on_exchange(exchange);
        if (value) return value;

        last_problem = value.error().message;
        auto note = malformed_.render({{"problem", last_problem}});
        if (!note) return note.error();
        if (!answered_in_history) messages.push_back({"assistant", reply->text});
        for (auto& m : *note) messages.push_back(std::move(m));
        ++attempt;
    }
    return make_error(fmt::format("{}: {} unusable repl{}; the last: {}", role, attempts, attempts == 1 ? "y" : "ies",
                                  last_problem));
}

Result<AnalystPlan> LlmAgents::analyst(const AnalystInput& input) const {
    auto messages = analyst_.render({{"task", or_none(input.task)},
                                     {"roofline", or_none(input.roofline)},
                                     {"findings", numbered(input.findings)},
                                     {"lessons", bulleted(input.lessons)},
                                     {"source", or_none(input.source)},
                                     {"history", or_none(input.history)}});
    if (!messages) return messages.error();
    return ask<AnalystPlan>("analyst", std::move(*messages), options_.analyst_max_tokens, false,
                            [](const ChatReply& reply) { return parse_analyst_reply(reply.text); });
}

Result<CandidateCode> LlmAgents::coder(const CoderInput& input) const {
    auto messages = coder_.render({{"task", or_none(input.task)},
                                   {"abi", abi_},
                                   {"plan", or_none(input.plan)},
                                   {"findings", numbered(input.findings)},
                                   {"lessons", bulleted(input.lessons)},
                                   {"source", or_none(input.source)}});
    if (!messages) return messages.error();
    return ask<CandidateCode>("coder", std::move(*messages), options_.coder_max_tokens, true, [](const ChatReply& reply) {
        return parse_code_reply(reply.text, reply.hit_token_limit());
    });
}

Result<CandidateCode> LlmAgents::fixer(const FixerInput& input) const {
    auto messages = fixer_.render({{"task", or_none(input.task)},
                                   {"abi", abi_},
                                   {"failure_kind", or_none(input.failure_kind)},
                                   {"diagnostics", or_none(trim_diagnostics(input.diagnostics, options_.diagnostics))},
                                   {"source", or_none(input.source)}});
    if (!messages) return messages.error();
    return ask<CandidateCode>("fixer", std::move(*messages), options_.coder_max_tokens, true, [](const ChatReply& reply) {
        return parse_code_reply(reply.text, reply.hit_token_limit());
    });
}

Result<CandidateCode> LlmAgents::writer(const WriterInput& input) const {
    if (!writer_) return make_error("the prompts folder has no writer.md (the prompt for a task's first version)");
    auto messages = writer_->render({{"task", or_none(input.task)},
                                     {"abi", abi_},
                                     {"pytorch", or_none(input.pytorch_source)},
                                     {"tensors", or_none(input.tensors)},
                                     {"roofline", or_none(input.roofline)}});
    if (!messages) return messages.error();
    return ask<CandidateCode>("writer", std::move(*messages), options_.coder_max_tokens, true, [](const ChatReply& reply) {
        return parse_code_reply(reply.text, reply.hit_token_limit());
    });
}

}  // namespace kp::llm
