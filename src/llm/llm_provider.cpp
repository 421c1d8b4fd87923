#include "llm/llm_provider.h"

namespace kp::llm {

PluginRegistry<LlmProvider>& llm_providers() {
    static PluginRegistry<LlmProvider> registry("LLM provider");
    return registry;
}

}  // namespace kp::llm
