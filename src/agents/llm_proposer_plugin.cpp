// The llm proposer (`--proposer llm`, implied by `--llm SPEC`): builds the LLM agents from the
// run's LLM choice. A new run resolves the choice (spec, config file, environment) and records
// the settings in its recipe; a resumed run rebuilds the client from the recorded settings, skips
// the replies it already used (a script, a replay) and reads its key from the environment again.
#include <algorithm>
#include <filesystem>

#include "agents/llm_proposer.h"
#include "codesearch/code_search_tools.h"
#include "llm/client_factory.h"
#include "llm/llm_provider.h"
#include "llm/recorded_settings.h"
#include "search/proposer_registry.h"

namespace kp::agents {

namespace {

Result<llm::LlmConfig> resolve_new_choice(const search::LlmChoice& choice, const llm::Environment& environment) {
    llm::LlmConfigSources sources;
    if (!choice.spec.empty()) sources.spec = choice.spec;
    if (!choice.config_file.empty()) sources.config_file = std::filesystem::path(choice.config_file);
    sources.environment = environment;
    auto config = llm::resolve_llm_config(sources);
    if (!config) return config.error();
    if (!choice.record.empty()) config->record_path = choice.record;
    if (!choice.replay.empty()) config->replay_path = choice.replay;
    // A script named relative to where the run started is found from anywhere on resume.
    const llm::LlmProvider* provider = llm::llm_providers().find(config->spec.provider);
    if (provider && provider->model_is_path) config->spec.model = std::filesystem::absolute(config->spec.model).string();
    return config;
}

Result<llm::LlmConfig> config_for(const search::ProposerContext& context) {
    if (context.llm.settings.is_null()) return resolve_new_choice(context.llm, context.environment);
    return llm::config_from_recorded(context.llm.settings, context.environment);
}

Result<std::unique_ptr<search::Proposer>> make_llm_proposer(search::ProposerContext& context) {
    auto config = config_for(context);
    if (!config) return config.error();
    context.llm.settings = llm::recorded_settings(*config);
    auto client = llm::make_chat_client(*config, std::make_shared<llm::SpendTracker>());
    if (!client) return client.error();
    (*client)->skip_served(context.served_llm_purposes);
    llm::LlmAgentsOptions options;
    options.prompts_dir = config->prompts_dir;
    options.max_tool_calls = config->max_tool_calls;
    if (std::find(context.task_libraries.begin(), context.task_libraries.end(), "cutlass") != context.task_libraries.end())
        options.coder_prompt = "coder_cute.md";
    if (!context.code_search_tree.empty()) {
        auto tools = codesearch::open_code_search_tools(context.code_search_tree);
        if (!tools) return make_error("code search: " + tools.error().message);
        options.tools = std::move(*tools);
    }
    auto agents = llm::LlmAgents::create(*client, options);
    if (!agents) return agents.error();
    return std::unique_ptr<search::Proposer>(std::make_unique<LlmProposer>(
        std::make_shared<llm::LlmAgents>(std::move(*agents)), context.task_description));
}

// Resolution errors are left to make_llm_proposer, which reports them as the user's.
Status check_llm_environment(const search::ProposerContext& context) {
    auto config = config_for(context);
    if (!config) return {};
    return llm::require_api_key(*config);
}

// The fixer repairs correctness failures and crashes too, not only compile errors.
void let_the_fixer_repair(search::SearchConfig& config) {
    using search::StatusClass;
    config.repairable = {StatusClass::compile_error,     StatusClass::incorrect,           StatusClass::crash,
                         StatusClass::timeout,           StatusClass::rejected_by_guard,   StatusClass::rejected_by_sandbox,
                         StatusClass::out_of_memory};
    config.max_repair_chain = 3;
}

}  // namespace

KP_REGISTER_PROPOSER(search::ProposerPlugin{
    "llm", "LLM agents: the analyst plans and the coder rewrites correct kernels, the fixer repairs failed ones",
    make_llm_proposer, check_llm_environment, let_the_fixer_repair})

}  // namespace kp::agents
