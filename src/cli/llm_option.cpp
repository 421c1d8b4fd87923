#include "cli/llm_option.h"

#include "agents/scripted_chat_client.h"
#include "llm/client_factory.h"
#include "llm/llm_config.h"

namespace kp::cli {

Result<std::shared_ptr<llm::LlmAgents>> make_llm_agents(const LlmOptionValues& values) {
    std::shared_ptr<llm::ChatClient> client;
    if (values.spec.rfind("script:", 0) == 0) {
        auto scripted = agents::ScriptedChatClient::open(values.spec.substr(7));
        if (!scripted.ok()) return scripted.error();
        client = *scripted;
    } else {
        llm::LlmConfigSources sources;
        sources.spec = values.spec;
        if (!values.config.empty()) sources.config_file = values.config;
        sources.environment = llm::read_llm_environment();
        auto config = llm::load_llm_config(sources);
        if (!config.ok()) return config.error();
        if (!values.record.empty()) config->record_path = values.record;
        if (!values.replay.empty()) config->replay_path = values.replay;
        auto made = llm::make_chat_client(*config, std::make_shared<llm::SpendTracker>());
        if (!made.ok()) return made.error();
        client = *made;
    }
    auto agents = llm::LlmAgents::create(client);
    if (!agents.ok()) return agents.error();
    return std::make_shared<llm::LlmAgents>(std::move(*agents));
}

}  // namespace kp::cli
