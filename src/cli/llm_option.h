// The --llm option of optimize and bench, turned into the LLM agents.
#pragma once

#include <memory>
#include <string>

#include "common/result.h"
#include "llm/llm_agents.h"

namespace kp::cli {

struct LlmOptionValues {
    std::string spec;    // PROVIDER:MODEL, or script:FILE.jsonl
    std::string config;  // --llm-config
    std::string record;  // --llm-record
    std::string replay;  // --llm-replay
};

// `script:FILE` (a hand-written JSONL of replies) or PROVIDER:MODEL (configuration from the
// environment or $KERNELPRO_LLM_CONFIG, see docs/llm.md).
Result<std::shared_ptr<llm::LlmAgents>> make_llm_agents(const LlmOptionValues& values);
// The chat client alone (record/replay applied), for callers with prompts of their own (autoprofile learn).
Result<std::shared_ptr<llm::ChatClient>> make_llm_client(const LlmOptionValues& values);

}  // namespace kp::cli
