// A provider spec names who answers: `PROVIDER:MODEL`, e.g. `openai:gpt-4.1`,
// `anthropic:claude-sonnet-4`, `openai:qwen` (with a base URL pointing at vLLM, SGLang, ...).
#pragma once

#include <string>
#include <string_view>

#include "common/result.h"

namespace kp::llm {

enum class ProviderKind {
    openai,     // OpenAI-compatible chat completions: OpenAI, vLLM, SGLang, llama.cpp server, Ollama
    anthropic,  // Anthropic Messages API
};

struct ProviderSpec {
    ProviderKind kind = ProviderKind::openai;
    std::string model;

    std::string to_string() const;
};

std::string_view provider_name(ProviderKind kind);

// Accepts "openai", "anthropic" and the aliases "oai", "vllm", "sglang", "llamacpp", "ollama"
// (all OpenAI-compatible) and "claude". The model may itself contain ':' (e.g. "ollama:qwen2.5:7b").
Result<ProviderSpec> parse_provider_spec(std::string_view text);

}  // namespace kp::llm
