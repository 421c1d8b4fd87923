// LLM providers, registered by name: who answers `--llm PROVIDER:MODEL`. An entry says which
// names find it, where its conventional key and base URL live, and how to build its chat client
// from a resolved LlmConfig. Built in: openai (OpenAI-compatible chat completions, also vLLM,
// SGLang, llama.cpp, Ollama), anthropic (Messages API), script (answers from a hand-written
// file). A new provider is one file ending in KP_REGISTER_LLM_PROVIDER(...) (an HTTP one: its
// ChatProtocol and make_http_client) and one kp_add_plugin line in src/llm/CMakeLists.txt.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/plugin_registry.h"
#include "llm/chat_client.h"
#include "llm/llm_config.h"
#include "llm/pricing.h"

namespace kp::llm {

struct LlmProvider {
    std::string name;
    std::vector<std::string> aliases;  // other names for it in a spec, e.g. "vllm" for openai
    std::string summary;               // one line, for docs and errors
    // The conventional variables for its key and base URL ("": none). A provider with a key
    // variable needs a key unless a base URL points elsewhere (a local server).
    std::string api_key_variable;
    std::string base_url_variable;
    bool model_is_path = false;  // the part after ':' names a file (script:FILE), resolved at start
    // The client for a resolved config; `spend` is the run's shared tracker (may be null).
    std::function<Result<std::shared_ptr<ChatClient>>(const LlmConfig&, std::shared_ptr<SpendTracker>)> make_client;
};

PluginRegistry<LlmProvider>& llm_providers();

}  // namespace kp::llm

#define KP_REGISTER_LLM_PROVIDER(...) KP_REGISTER_PLUGINS(::kp::llm::LlmProvider, ::kp::llm::llm_providers(), __VA_ARGS__)
