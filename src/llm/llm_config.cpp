#include "llm/llm_config.h"

#include <fmt/format.h>

#include <cmath>
#include <set>
#include <toml++/toml.h>

#include "common/files.h"
#include "llm/llm_provider.h"
#include "llm/toml_document.h"

extern char** environ;

namespace kp::llm {

namespace fs = std::filesystem;

namespace {

std::optional<std::string> lookup(const Environment& env, const std::string& name) {
    auto it = env.find(name);
    if (it == env.end() || it->second.empty()) return std::nullopt;
    return it->second;
}

std::chrono::milliseconds seconds_to_ms(double seconds) {
    return std::chrono::milliseconds(static_cast<long long>(std::llround(seconds * 1000.0)));
}

fs::path resolve_against(const fs::path& base, const std::string& value) {
    fs::path p(value);
    return p.is_absolute() || base.empty() ? p : base / p;
}

// Reads one [llm] key into the config; errors carry source:line.
Status apply_key(LlmConfig& config, const std::string& key, const toml::node& node, const std::string& where,
                 const fs::path& base_directory, std::optional<std::string>& api_key_env) {
    auto want_string = [&]() -> Result<std::string> {
        if (auto s = node.value<std::string>()) return *s;
        return make_error(where + ": " + key + " must be a string");
    };
    auto want_number = [&](double min_value) -> Result<double> {
        auto d = node.value<double>();
        if (!d || !std::isfinite(*d) || *d < min_value)
            return make_error(fmt::format("{}: {} must be a number >= {}", where, key, min_value));
        return *d;
    };
    auto want_integer = [&](std::int64_t min_value) -> Result<std::int64_t> {
        auto i = node.value<std::int64_t>();
        if (!i || *i < min_value) return make_error(fmt::format("{}: {} must be an integer >= {}", where, key, min_value));
        return *i;
    };
    if (key == "model" || key == "spec") {
        auto s = want_string();
        if (!s) return s.error();
        auto spec = parse_provider_spec(*s);
        if (!spec) return make_error(where + ": " + spec.error().message);
        config.spec = *spec;
    } else if (key == "base_url") {
        auto s = want_string();
        if (!s) return s.error();
        config.base_url = *s;
    } else if (key == "api_key_env") {
        auto s = want_string();
        if (!s) return s.error();
        api_key_env = *s;
    } else if (key == "api_key") {
        return make_error(where + ": api_key: keys do not belong in config files; name the variable that holds it "
                                  "with api_key_env, or set KERNELPRO_LLM_API_KEY");
    } else if (key == "timeout_s") {
        auto d = want_number(0.001);
        if (!d) return d.error();
        config.timeout = seconds_to_ms(*d);
    } else if (key == "max_retries") {
        auto i = want_integer(0);
        if (!i) return i.error();
        config.retry.max_retries = static_cast<int>(*i);
    } else if (key == "initial_backoff_s") {
        auto d = want_number(0);
        if (!d) return d.error();
        config.retry.initial_backoff = seconds_to_ms(*d);
    } else if (key == "max_backoff_s") {
        auto d = want_number(0);
        if (!d) return d.error();
        config.retry.max_backoff = seconds_to_ms(*d);
    } else if (key == "max_retry_after_s") {
        auto d = want_number(0);
        if (!d) return d.error();
        config.retry.max_retry_after = seconds_to_ms(*d);
    } else if (key == "max_tokens") {
        auto i = want_integer(1);
        if (!i) return i.error();
        config.max_tokens = static_cast<int>(*i);
    } else if (key == "max_tool_calls") {
        auto i = want_integer(0);
        if (!i) return i.error();
        config.max_tool_calls = static_cast<int>(*i);
    } else if (key == "temperature") {
        auto d = node.value<double>();
        if (!d || !std::isfinite(*d)) return make_error(where + ": temperature must be a number");
        config.temperature = *d;
    } else if (key == "prices" || key == "record" || key == "replay" || key == "prompts_dir") {
        auto s = want_string();
        if (!s) return s.error();
        fs::path p = resolve_against(base_directory, *s);
        if (key == "prices") config.price_file = p;
        else if (key == "record") config.record_path = p;
        else if (key == "replay") config.replay_path = p;
        else config.prompts_dir = p;
    } else {
        return make_error(where + ": unknown key '" + key +
                          "' (known: model, base_url, api_key_env, timeout_s, max_retries, initial_backoff_s, "
                          "max_backoff_s, max_retry_after_s, max_tokens, max_tool_calls, temperature, prices, record, "
                          "replay, prompts_dir)");
    }
    return {};
}

struct FileSettings {
    LlmConfig config;
    std::optional<std::string> api_key_env;
    bool has_model = false;
};

Result<FileSettings> parse_file(const std::string& text, const std::string& source, const fs::path& base_directory,
                                LlmConfig base) {
    auto parsed = parse_toml_document(text, source);
    if (!parsed) return parsed.error();
    const toml::table& root = *parsed;
    // The settings live under [llm], so the file can share a kernelpro.toml with other sections.
    const toml::table* llm = root["llm"].as_table();
    if (!llm) return make_error(source + ": no [llm] table");
    FileSettings settings{std::move(base), std::nullopt, false};
    for (const auto& [key, node] : *llm) {
        const std::string where = fmt::format("{}:{}", source, node.source().begin.line);
        auto applied = apply_key(settings.config, std::string(key.str()), node, where, base_directory,
                                 settings.api_key_env);
        if (!applied) return applied.error();
        if (key == "model" || key == "spec") settings.has_model = true;
    }
    return settings;
}

}  // namespace

Environment read_llm_environment() {
    Environment env;
    for (char** entry = environ; entry && *entry; ++entry) {
        std::string text(*entry);
        auto eq = text.find('=');
        if (eq != std::string::npos) env[text.substr(0, eq)] = text.substr(eq + 1);
    }
    return env;
}

Result<LlmConfig> parse_llm_config(const std::string& text, const std::string& source,
                                   const fs::path& base_directory, LlmConfig base) {
    auto settings = parse_file(text, source, base_directory, std::move(base));
    if (!settings) return settings.error();
    return settings->config;
}

Status read_api_key(LlmConfig& config, const Environment& env) {
    const LlmProvider* provider = llm_providers().find(config.spec.provider);
    if (auto key = lookup(env, "KERNELPRO_LLM_API_KEY")) {
        config.api_key = *key;
    } else if (!config.api_key_variable.empty()) {
        auto named = lookup(env, config.api_key_variable);
        if (!named) return make_error("LLM config: api_key_env names " + config.api_key_variable + ", which is not set");
        config.api_key = *named;
    } else if (provider && !provider->api_key_variable.empty()) {
        if (auto conventional = lookup(env, provider->api_key_variable)) config.api_key = *conventional;
    }
    return {};
}

Status require_api_key(const LlmConfig& config) {
    const LlmProvider* provider = llm_providers().find(config.spec.provider);
    // The public endpoints need a key; a local server (vLLM, Ollama, ...) usually does not.
    if (!provider || provider->api_key_variable.empty() || !config.replay_path.empty() || !config.base_url.empty() ||
        !config.api_key.empty())
        return {};
    const std::string variable = config.api_key_variable.empty() ? provider->api_key_variable : config.api_key_variable;
    return make_error("no API key for " + config.spec.to_string() + ": set " + variable +
                      " or KERNELPRO_LLM_API_KEY (or KERNELPRO_LLM_BASE_URL for a local server)");
}

Result<LlmConfig> load_llm_config(const LlmConfigSources& sources) {
    auto config = resolve_llm_config(sources);
    if (!config) return config.error();
    if (auto keyed = require_api_key(*config); !keyed) return keyed.error();
    return config;
}

Result<LlmConfig> resolve_llm_config(const LlmConfigSources& sources) {
    const Environment& env = sources.environment;
    LlmConfig config;
    bool have_model = false;

    std::optional<fs::path> file = sources.config_file;
    if (!file) {
        if (auto from_env = lookup(env, "KERNELPRO_LLM_CONFIG")) file = fs::path(*from_env);
    }
    if (file) {
        auto text = read_text_file(*file);
        if (!text) return make_error("LLM config: " + text.error().message);
        auto settings = parse_file(*text, file->string(), file->parent_path(), config);
        if (!settings) return settings.error();
        config = settings->config;
        have_model = settings->has_model;
        config.api_key_variable = settings->api_key_env.value_or("");
    }

    if (sources.spec) {
        auto spec = parse_provider_spec(*sources.spec);
        if (!spec) return spec.error();
        config.spec = *spec;
        have_model = true;
    } else if (auto from_env = lookup(env, "KERNELPRO_LLM")) {
        auto spec = parse_provider_spec(*from_env);
        if (!spec) return make_error("KERNELPRO_LLM: " + spec.error().message);
        config.spec = *spec;
        have_model = true;
    }

    const LlmProvider* provider = llm_providers().find(config.spec.provider);
    if (auto url = lookup(env, "KERNELPRO_LLM_BASE_URL")) config.base_url = *url;
    else if (provider && !provider->base_url_variable.empty())
        if (auto conventional = lookup(env, provider->base_url_variable)) config.base_url = *conventional;
    if (auto read = read_api_key(config, env); !read) return read.error();

    if (auto p = lookup(env, "KERNELPRO_LLM_RECORD")) config.record_path = *p;
    if (auto p = lookup(env, "KERNELPRO_LLM_REPLAY")) config.replay_path = *p;
    if (auto p = lookup(env, "KERNELPRO_LLM_PRICES")) config.price_file = *p;
    if (auto p = lookup(env, "KERNELPRO_PROMPTS_DIR")) config.prompts_dir = *p;

    const bool replaying = !config.replay_path.empty();
    if (!have_model && !replaying)
        return make_error("no LLM chosen: pass PROVIDER:MODEL (e.g. openai:gpt-4.1), set KERNELPRO_LLM, or set "
                          "`model` under [llm] in the config file");
    if (!config.base_url.empty() && config.base_url.rfind("http://", 0) != 0 &&
        config.base_url.rfind("https://", 0) != 0)
        return make_error("LLM base URL '" + config.base_url + "' must start with http:// or https://");
    return config;
}

}  // namespace kp::llm
