// The script provider (`--llm script:FILE.jsonl`): a chat client that answers from a script written
// by a person, not a model: a JSONL file whose lines are {"role": "analyst"|"coder"|"fixer",
// "reply": "..."}, or for a turn that calls tools {"role": "coder", "tool_calls": [{"name":
// "search_code", "arguments": {...}}], "reply": "optional text"}; each request gets the next
// unused reply written for its role (the search
// decides which role asks when, so order within a role is all a script can fix). For reproducible
// runs and tests of the closed loop without an LLM; an exhausted role answers with an error, which
// the LLM proposer turns into "no proposal". A resumed run skips the replies it already used.
#pragma once

#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "llm/chat_client.h"

namespace kp::llm {

class ScriptedChatClient : public ChatClient {
public:
    static Result<std::shared_ptr<ScriptedChatClient>> open(const std::filesystem::path& script);
    struct ScriptedReply {
        std::string text;
        std::vector<ToolCall> tool_calls;  // ids "call_<role>_<n>" when the script gives none
    };
    explicit ScriptedChatClient(std::map<std::string, std::vector<ScriptedReply>> replies, std::string source);

    Result<ChatReply> complete(const ChatRequest& request) override;
    std::string describe() const override { return "script " + source_; }
    void skip_served(const std::vector<std::string>& purposes) override;
    size_t served() const;

private:
    std::map<std::string, std::vector<ScriptedReply>> replies_;
    std::map<std::string, size_t> next_;
    std::string source_;
    mutable std::mutex mutex_;
    size_t served_ = 0;
};

}  // namespace kp::llm
