#include "llm/client_factory.h"

#include "llm/exchange_recording.h"
#include "llm/llm_provider.h"
#include "llm/replay_client.h"

namespace kp::llm {

Result<std::shared_ptr<ChatClient>> make_chat_client(const LlmConfig& config, std::shared_ptr<SpendTracker> spend) {
    std::shared_ptr<ChatClient> client;
    if (!config.replay_path.empty()) {
        auto replay = ReplayClient::open(config.replay_path, {}, spend);
        if (!replay) return replay.error();
        client = std::move(*replay);
    } else {
        auto provider = llm_providers().lookup(config.spec.provider);
        if (!provider) return provider.error();
        auto made = (*provider)->make_client(config, spend);
        if (!made) return made.error();
        client = std::move(*made);
    }
    if (!config.record_path.empty()) {
        auto recorder = ExchangeRecorder::open(config.record_path);
        if (!recorder) return recorder.error();
        client = std::make_shared<RecordingChatClient>(std::move(client), std::move(*recorder));
    }
    return client;
}

}  // namespace kp::llm
