// A provider spec names who answers: `PROVIDER:MODEL`, e.g. `openai:gpt-4.1`,
// `anthropic:claude-sonnet-4`, `openai:qwen` (with a base URL pointing at vLLM, SGLang, ...),
// `script:replies.jsonl`. PROVIDER is a registered LLM provider's name or alias (llm_provider.h).
#pragma once

#include <string>
#include <string_view>

#include "common/result.h"

namespace kp::llm {

struct ProviderSpec {
    std::string provider = "openai";  // a registered provider's name (aliases are resolved)
    std::string model;

    std::string to_string() const { return provider + ":" + model; }
    bool operator==(const ProviderSpec&) const = default;
};

// The provider is matched case-insensitively, by name or alias. The model may itself contain ':'
// (e.g. "ollama:qwen2.5:7b").
Result<ProviderSpec> parse_provider_spec(std::string_view text);

}  // namespace kp::llm
