#include "llm/recorded_settings.h"

#include <cmath>

namespace kp::llm {

namespace {

double seconds(std::chrono::milliseconds duration) { return static_cast<double>(duration.count()) / 1000.0; }

std::chrono::milliseconds milliseconds(double seconds) {
    return std::chrono::milliseconds(static_cast<long long>(std::llround(seconds * 1000.0)));
}

}  // namespace

nlohmann::json recorded_settings(const LlmConfig& config) {
    return {
        {"spec", config.spec.to_string()},
        {"base_url", config.base_url},
        {"api_key_variable", config.api_key_variable},
        {"timeout_s", seconds(config.timeout)},
        {"max_retries", config.retry.max_retries},
        {"initial_backoff_s", seconds(config.retry.initial_backoff)},
        {"max_backoff_s", seconds(config.retry.max_backoff)},
        {"max_retry_after_s", seconds(config.retry.max_retry_after)},
        {"max_tokens", config.max_tokens},
        {"max_tool_calls", config.max_tool_calls},
        {"temperature", config.temperature},
        {"prices", config.price_file.string()},
        {"record", config.record_path.string()},
        {"replay", config.replay_path.string()},
        {"prompts_dir", config.prompts_dir.string()},
    };
}

Result<LlmConfig> config_from_recorded(const nlohmann::json& settings, const Environment& env) {
    if (!settings.is_object()) return make_error("recorded LLM settings are not a JSON object");
    LlmConfig config;
    try {
        auto spec = parse_provider_spec(settings.at("spec").get<std::string>());
        if (!spec) return make_error("recorded LLM settings: " + spec.error().message);
        config.spec = *spec;
        config.base_url = settings.value("base_url", "");
        config.api_key_variable = settings.value("api_key_variable", "");
        config.timeout = milliseconds(settings.value("timeout_s", seconds(config.timeout)));
        config.retry.max_retries = settings.value("max_retries", config.retry.max_retries);
        config.retry.initial_backoff = milliseconds(settings.value("initial_backoff_s", seconds(config.retry.initial_backoff)));
        config.retry.max_backoff = milliseconds(settings.value("max_backoff_s", seconds(config.retry.max_backoff)));
        config.retry.max_retry_after = milliseconds(settings.value("max_retry_after_s", seconds(config.retry.max_retry_after)));
        config.max_tokens = settings.value("max_tokens", config.max_tokens);
        config.max_tool_calls = settings.value("max_tool_calls", config.max_tool_calls);
        config.temperature = settings.value("temperature", config.temperature);
        config.price_file = settings.value("prices", "");
        config.record_path = settings.value("record", "");
        config.replay_path = settings.value("replay", "");
        config.prompts_dir = settings.value("prompts_dir", "");
    } catch (const nlohmann::json::exception& error) {
        return make_error(std::string("recorded LLM settings: ") + error.what());
    }
    if (auto read = read_api_key(config, env); !read) return read.error();
    return config;
}

}  // namespace kp::llm
