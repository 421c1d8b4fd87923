#include "agents/llm_proposer.h"

#include <fmt/format.h>

#include "analysis/feedback.h"
#include "common/utf8.h"
#include "search/proposers/parameter_space.h"

namespace kp::agents {

namespace {

search::LlmExchange to_search_exchange(const llm::LlmExchange& e) {
    search::LlmExchange s;
    s.agent = e.role;
    s.model = e.model;
    s.prompt = e.prompt;
    s.reply = e.ok ? e.reply : e.reply + (e.error.empty() ? "" : "\n[unusable: " + e.error + "]");
    s.tokens_in = e.tokens_in;
    s.tokens_out = e.tokens_out;
    s.latency_seconds = e.latency_s;
    s.cost_usd = e.cost;
    if (!e.tool_calls.empty()) s.tool_calls = dump_json(e.tool_calls);
    return s;
}

std::string failure_kind(search::StatusClass status) {
    switch (status) {
        case search::StatusClass::compile_error: return "compile error";
        case search::StatusClass::rejected_by_guard: return "rejected by the static guard (forbidden call)";
        case search::StatusClass::crash: return "crash";
        case search::StatusClass::timeout: return "timeout (hang)";
        case search::StatusClass::out_of_memory: return "out of memory";
        case search::StatusClass::incorrect: return "wrong results";
        case search::StatusClass::invalid_timing: return "timing the harness cannot trust";
        case search::StatusClass::rejected_by_sandbox: return "stopped by the sandbox (a forbidden system call or file access)";
        case search::StatusClass::ok: return "";
    }
    return "failure";
}

std::vector<std::string> lesson_lines(const std::vector<search::Lesson>& lessons) {
    std::vector<std::string> lines;
    for (const auto& l : lessons) {
        std::string outcome = l.speedup_ratio ? fmt::format("{:.2f}x over its parent", *l.speedup_ratio)
                              : l.failure    ? std::string("failed: ") + search::status_class_name(*l.failure)
                                             : std::string("unknown outcome");
        lines.push_back(fmt::format("[{}; {}] {} -> {}", l.roofline_class.empty() ? "?" : l.roofline_class,
                                    search::proposal_kind_name(l.change_kind), l.change_text, outcome));
    }
    return lines;
}

}  // namespace

search::ParameterValues carry_parameters(const search::ParameterValues& parent,
                                         const std::vector<llm::TunableDeclaration>& declared, const std::string& source) {
    search::ParameterValues values;
    auto declared_value = [](const llm::TunableDeclaration& t, const std::optional<std::string>& v) {
        return v && std::find(t.values.begin(), t.values.end(), *v) != t.values.end();
    };
    for (const auto& t : declared) {
        if (t.values.empty()) continue;
        auto it = parent.find(t.name);
        if (it != parent.end() && declared_value(t, it->second)) {
            values[t.name] = it->second;
            continue;
        }
        auto def = search::source_define_default(source, t.name);
        values[t.name] = declared_value(t, def) ? *def : t.values.front();
    }
    return values;
}

LlmProposer::LlmProposer(std::shared_ptr<llm::LlmAgents> agents, std::string task_description)
    : agents_(std::move(agents)), task_description_(std::move(task_description)) {}

Result<search::ProposalBatch> LlmProposer::propose(const search::ProposalRequest& request) {
    search::ProposalBatch batch;
    if (!request.rewrites_wanted) return batch;
    agents_->set_exchange_sink([&batch](const llm::LlmExchange& e) { batch.exchanges.push_back(to_search_exchange(e)); });
    struct SinkReset {
        llm::LlmAgents& agents;
        ~SinkReset() { agents.set_exchange_sink(nullptr); }
    } reset_sink{*agents_};
    const search::NodeView& node = request.node;
    const auto& evaluation = node.evaluation;
    std::vector<std::string> findings;
    if (evaluation && request.feedback != search::FeedbackKind::none) {
        if (request.feedback == search::FeedbackKind::tool_findings) {
            for (const auto& f : evaluation->findings) findings.push_back(analysis::render_finding_for_prompt(f));
            if (findings.empty() && !evaluation->findings_summary.empty()) findings.push_back(evaluation->findings_summary);
        } else if (!evaluation->profiles.empty()) {
            findings.push_back(dump_json(evaluation->profiles).substr(0, 4000));
        }
    }
    std::vector<std::string> lessons = lesson_lines(request.lessons);

    Result<llm::CandidateCode> code = make_error("no attempt");
    std::string rationale;
    if (evaluation && !evaluation->correct()) {
        code = agents_->fixer({task_description_, failure_kind(evaluation->status), evaluation->message, node.candidate.source});
        rationale = "fix " + failure_kind(evaluation->status);
    } else {
        std::string roofline;
        if (evaluation) {
            roofline = fmt::format("class {}; {}; {}", evaluation->roofline_class.empty() ? "unknown" : evaluation->roofline_class,
                                   evaluation->median_seconds ? fmt::format("median {:.1f} us", *evaluation->median_seconds * 1e6) : "",
                                   evaluation->roofline_fraction ? fmt::format("{:.0f}% of the roofline floor", *evaluation->roofline_fraction * 100)
                                                                 : "");
            if (!request.objective_note.empty()) roofline += "\n" + request.objective_note;
        }
        std::string history;
        for (const auto& a : request.lineage) history += fmt::format("{} ({}x) <- ", a.origin, a.speedup_over_baseline);
        auto plan = agents_->analyst({task_description_, roofline, findings, lessons, node.candidate.source, history});
        if (!plan.ok()) return batch;  // unusable after retries: no proposal from this node this time
        code = agents_->coder({task_description_, llm::format_plan(*plan), findings, lessons, node.candidate.source});
        rationale = plan->bottleneck.empty() ? plan->plan : plan->bottleneck + ": " + plan->plan;
    }
    if (!code.ok()) return batch;
    search::Proposal proposal;
    proposal.kind = search::ProposalKind::rewrite;
    proposal.candidate.source = code->source;
    proposal.candidate.params = carry_parameters(node.candidate.params, code->tunables, code->source);
    proposal.rationale = rationale.substr(0, 400);
    batch.proposals.push_back(std::move(proposal));
    return batch;
}

}  // namespace kp::agents
