// Builds the chat client a config asks for: a replay of a recording, or the provider's own client
// (llm_provider.h), wrapped in a recorder when a record path is set. All clients of one run share
// one SpendTracker.
#pragma once

#include <memory>

#include "llm/chat_client.h"
#include "llm/llm_config.h"
#include "llm/pricing.h"

namespace kp::llm {

Result<std::shared_ptr<ChatClient>> make_chat_client(const LlmConfig& config, std::shared_ptr<SpendTracker> spend);

}  // namespace kp::llm
