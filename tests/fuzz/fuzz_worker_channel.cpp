// libFuzzer target: bytes on the worker channel (candidate code can write anything to it) through
// the orchestrator's reader, fed in uneven pieces. It must never throw, and whatever it keeps
// must be valid UTF-8 (it reaches JSON reports and the terminal).
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "common/utf8.h"
#include "eval/worker_channel_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view bytes(reinterpret_cast<const char*>(data), size);
    int progress_messages = 0;
    kp::WorkerChannelReader reader("00c0ffee", [] { return 0.0; }, [&](const nlohmann::json&) { ++progress_messages; });
    size_t piece = size > 0 ? 1 + data[0] % 97 : 1;
    for (size_t at = 0; at < bytes.size(); at += piece) reader.feed(bytes.substr(at, piece));
    reader.finish();
    const auto& state = reader.state();
    if (!kp::is_valid_utf8(state.message) || !kp::is_valid_utf8(state.phase) || !kp::is_valid_utf8(state.forged)) std::abort();
    for (const auto& note : state.sandbox_notes)
        if (!kp::is_valid_utf8(note)) std::abort();
    (void)kp::dump_json(state.hello);
    (void)kp::dump_json(state.result);
    if (state.got_final && state.status == kp::FailureClass::Ok && !state.result.is_object()) std::abort();
    (void)progress_messages;
    return 0;
}
