// Where an LLM client's settings come from. Lowest to highest precedence:
//   built-in defaults < TOML config file ([llm] table) < environment < an explicit spec string.
// See docs/llm.md for every key and variable.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "common/result.h"
#include "llm/provider_spec.h"
#include "llm/retry_policy.h"

namespace kp::llm {

struct LlmConfig {
    ProviderSpec spec;                       // provider and model
    std::string base_url;                    // empty: the provider's public endpoint
    std::string api_key;                     // never written to recordings, logs or the run store
    std::string api_key_variable;            // the file's api_key_env: where the key is read from
    std::chrono::milliseconds timeout{180000};  // per HTTP attempt
    RetryPolicy retry;
    int max_tokens = 8192;
    int max_tool_calls = 12;                 // code-search tool calls per proposal (llm_agents.h)
    double temperature = 0.2;                // negative: leave it to the server
    std::filesystem::path price_file;        // empty: built-in prices only
    std::filesystem::path record_path;       // non-empty: append every exchange here (JSONL)
    std::filesystem::path replay_path;       // non-empty: serve exchanges from this recording
    std::filesystem::path prompts_dir;       // empty: find_prompts_directory()
};

// The variables the loader reads, captured once so tests can pass their own.
using Environment = std::map<std::string, std::string>;
Environment read_llm_environment();

struct LlmConfigSources {
    std::optional<std::filesystem::path> config_file;  // else $KERNELPRO_LLM_CONFIG, if set
    std::optional<std::string> spec;                   // else $KERNELPRO_LLM, else the file's `model`
    Environment environment;
};

// Resolves and validates; errors name the file and line, or the variable, at fault. A provider
// that needs a key (llm_provider.h) and has none is an error too (require_api_key).
Result<LlmConfig> load_llm_config(const LlmConfigSources& sources);

// The same without the key requirement, for callers that report a missing key on its own (it is
// a problem of the environment, not of the choice made).
Result<LlmConfig> resolve_llm_config(const LlmConfigSources& sources);

// Reads the key: $KERNELPRO_LLM_API_KEY, else the config's api_key_variable, else the provider's
// conventional variable. Fails only when api_key_variable names an unset variable.
Status read_api_key(LlmConfig& config, const Environment& env);

// "no API key for openai:gpt-4.1: set OPENAI_API_KEY or KERNELPRO_LLM_API_KEY ..." when the
// provider needs a key and neither a key, a base URL of one's own nor a replay is given.
Status require_api_key(const LlmConfig& config);

// Same, for a config file's text (paths in it resolve against `base_directory`).
Result<LlmConfig> parse_llm_config(const std::string& toml_text, const std::string& source_name,
                                   const std::filesystem::path& base_directory, LlmConfig base = {});

}  // namespace kp::llm
