// The search's LLM proposer: for a correct node, the analyst reads the diagnosis (roofline class,
// findings, memory lessons) and plans, then the coder writes the next version; for a failed node
// (compile error, wrong results, crash, timeout, rejected by the guard), the fixer repairs it from
// the trimmed diagnostics. Every exchange goes back to the driver for the store and the budgets.
// A reply that stays unusable after the agents' own retries costs this proposal, never the run.
#pragma once

#include <memory>
#include <string>

#include "llm/llm_agents.h"
#include "search/proposer.h"

namespace kp::agents {

class LlmProposer : public search::Proposer {
public:
    // `task_description`: what the agents are told about the task (name, shapes, dtypes, cost).
    LlmProposer(std::shared_ptr<llm::LlmAgents> agents, std::string task_description);
    Result<search::ProposalBatch> propose(const search::ProposalRequest& request) override;

private:
    std::shared_ptr<llm::LlmAgents> agents_;
    std::string task_description_;
};

// Keeps the parent's parameter values whose names the new source still declares (kp:tune); a new
// one starts where the tuner would start it: the source's `#define` default when that value is
// declared, else the first declared value.
search::ParameterValues carry_parameters(const search::ParameterValues& parent,
                                         const std::vector<llm::TunableDeclaration>& declared, const std::string& source);

}  // namespace kp::agents
