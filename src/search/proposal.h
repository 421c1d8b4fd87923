// An edge of the search tree: a proposed change to a node's kernel. Two kinds, because they cost
// differently (asymmetric branching): a parameter move only recompiles with other values; a
// rewrite is new source, usually from an LLM, and is far more expensive and riskier.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "search/candidate.h"

namespace kp::search {

enum class ProposalKind { parameter_move, rewrite };

const char* proposal_kind_name(ProposalKind kind);
std::optional<ProposalKind> parse_proposal_kind(const std::string& text);

struct Proposal {
    ProposalKind kind = ProposalKind::parameter_move;
    Candidate candidate;    // the full new version (source and params), not a diff
    std::string rationale;  // one or two sentences: why this change; becomes the lesson's text
};

// One LLM call made while proposing; the driver stores it and charges it to the token and money
// budgets.
struct LlmExchange {
    std::string agent;
    std::string model;
    std::string prompt;
    std::string reply;
    std::int64_t tokens_in = 0;
    std::int64_t tokens_out = 0;
    double latency_seconds = 0.0;
    double cost_usd = 0.0;
    std::string tool_calls;  // JSON: the reply's tool calls with their results (llm_agents.h); "" none
};

struct ProposalBatch {
    std::vector<Proposal> proposals;  // empty: this proposer has nothing more for the node
    std::vector<LlmExchange> exchanges;
};

}  // namespace kp::search
