// An LLM config as a run records it (in its recipe, see search/run_recipe.h): everything that
// decides who answers and how (provider and model, base URL, timeouts, retries, limits, files),
// never the key: only the name of the variable it was read from, so a resumed run reads the same
// one. A resumed run rebuilds its client from this, not from whatever the environment now says.
#pragma once

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "llm/llm_config.h"

namespace kp::llm {

nlohmann::json recorded_settings(const LlmConfig& config);

// The config back, with the key read from `env` (read_api_key); errors name the field at fault.
// A missing key is not an error here (require_api_key says so on its own).
Result<LlmConfig> config_from_recorded(const nlohmann::json& settings, const Environment& env);

}  // namespace kp::llm
