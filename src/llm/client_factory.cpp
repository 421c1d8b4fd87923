#include "llm/client_factory.h"

#include "llm/exchange_recording.h"
#include "llm/http_chat_client.h"
#include "llm/replay_client.h"

namespace kp::llm {

Result<std::shared_ptr<ChatClient>> make_chat_client(const LlmConfig& config, std::shared_ptr<SpendTracker> spend) {
    std::shared_ptr<ChatClient> client;
    if (!config.replay_path.empty()) {
        auto replay = ReplayClient::open(config.replay_path, {}, spend);
        if (!replay) return replay.error();
        client = std::move(*replay);
    } else {
        PriceTable prices = PriceTable::defaults();
        if (!config.price_file.empty()) {
            auto loaded = PriceTable::load(config.price_file);
            if (!loaded) return loaded.error();
            prices = std::move(*loaded);
        }
        client = std::make_shared<HttpChatClient>(config, std::move(prices), spend);
    }
    if (!config.record_path.empty()) {
        auto recorder = ExchangeRecorder::open(config.record_path);
        if (!recorder) return recorder.error();
        client = std::make_shared<RecordingChatClient>(std::move(client), std::move(*recorder));
    }
    return client;
}

}  // namespace kp::llm
