#include "cli/llm_option.h"

#include <filesystem>

#include "llm/client_factory.h"
#include "llm/llm_config.h"
#include "llm/llm_provider.h"

namespace kp::cli {

namespace {

Result<llm::LlmConfig> resolve(const LlmOptionValues& values) {
    llm::LlmConfigSources sources;
    sources.spec = values.spec;
    if (!values.config.empty()) sources.config_file = values.config;
    sources.environment = llm::read_llm_environment();
    auto config = llm::resolve_llm_config(sources);
    if (!config.ok()) return config.error();
    if (!values.record.empty()) config->record_path = values.record;
    if (!values.replay.empty()) config->replay_path = values.replay;
    if (auto key = llm::require_api_key(*config); !key.ok()) return key.error();
    return config;
}

}  // namespace

Result<std::shared_ptr<llm::ChatClient>> make_llm_client(const LlmOptionValues& values) {
    auto config = resolve(values);
    if (!config.ok()) return config.error();
    return llm::make_chat_client(*config, std::make_shared<llm::SpendTracker>());
}

Result<std::shared_ptr<llm::LlmAgents>> make_llm_agents(const LlmOptionValues& values) {
    auto config = resolve(values);
    if (!config.ok()) return config.error();
    auto client = llm::make_chat_client(*config, std::make_shared<llm::SpendTracker>());
    if (!client.ok()) return client.error();
    llm::LlmAgentsOptions options;
    options.prompts_dir = config->prompts_dir;
    auto agents = llm::LlmAgents::create(*client, options);
    if (!agents.ok()) return agents.error();
    return std::make_shared<llm::LlmAgents>(std::move(*agents));
}

}  // namespace kp::cli
