// The orchestrator's reader of the worker's channel: newline-separated JSON messages (hello,
// progress, sandbox, result, failure, ...; docs/worker-protocol.md). Candidate code runs in the
// worker and can write anything to the channel's descriptor, so whatever the bytes this never
// throws and never grows without bound.
//
// Every message the worker writes carries the request's nonce: a line without it (not JSON, no
// object, another nonce) was written by candidate code and is kept as `forged`, which makes the
// evaluation rejected_by_sandbox. Among the worker's own final messages (result or failure) the
// last counts: the worker writes its own as its very last line, after candidate code has run, so
// a verdict that candidate code forged earlier with a nonce it found in memory is overwritten.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "eval/failure_class.h"

namespace kp {

struct ChannelState {
    bool got_hello = false;
    bool got_final = false;      // a result or a failure message
    FailureClass status = FailureClass::Crash;
    std::string message;         // of a failure
    std::string phase;           // of a failure
    nlohmann::json hello;        // the device description
    nlohmann::json result;       // the result document
    // The `collection` messages of a counters run with follow-ups, in order (at most kMaxCollections).
    std::vector<nlohmann::json> collections;
    std::map<std::string, double> phase_started;  // progress phase -> seconds (from `now`)
    nlohmann::json sandbox;      // the layers around candidate code, as the worker reported them
    std::vector<std::string> sandbox_notes;  // what threads from before the sandbox were let do or denied
    std::string violation;       // reported by the sandbox's supervisor
    std::string forged;          // the first line the worker did not write (printable characters only)
    std::string refusal;         // the worker refused to run candidate code
};

class WorkerChannelReader {
public:
    // `nonce` is the request's; `now` gives the seconds since the worker started; `on_progress`
    // sees each progress message.
    WorkerChannelReader(std::string nonce, std::function<double()> now, std::function<void(const nlohmann::json&)> on_progress);

    void feed(std::string_view bytes);
    // A last line without its newline (the worker's stream ended).
    void finish();
    const ChannelState& state() const { return state_; }

    // A line longer than this is dropped (a flood on the channel must not exhaust memory).
    static constexpr size_t kMaxLineBytes = size_t{64} << 20;
    // More `collection` messages than this are dropped (the orchestrator asks for a few).
    static constexpr size_t kMaxCollections = 16;

private:
    void handle_line(std::string_view line);
    void note_forged(std::string_view line);

    std::string nonce_;
    std::function<double()> now_;
    std::function<void(const nlohmann::json&)> on_progress_;
    std::string buffer_;
    bool discarding_ = false;  // inside an over-long line, until its newline
    ChannelState state_;
};

}  // namespace kp
