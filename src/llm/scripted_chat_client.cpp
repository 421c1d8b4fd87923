#include "llm/scripted_chat_client.h"

#include <fstream>

#include <nlohmann/json.hpp>

#include "llm/llm_provider.h"

namespace kp::llm {

Result<std::shared_ptr<ScriptedChatClient>> ScriptedChatClient::open(const std::filesystem::path& script) {
    std::ifstream in(script);
    if (!in) return make_error("cannot read LLM script " + script.string());
    std::map<std::string, std::vector<ScriptedReply>> replies;
    int number = 0;
    for (std::string line; std::getline(in, line);) {
        ++number;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        const std::string where = script.string() + ":" + std::to_string(number) + ": ";
        try {
            auto j = nlohmann::json::parse(line);
            const std::string role = j.at("role").get<std::string>();
            ScriptedReply reply;
            if (j.contains("tool_calls")) {
                auto calls = tool_calls_from_json(j["tool_calls"]);
                if (!calls) return make_error(where + calls.error().message);
                reply.tool_calls = std::move(*calls);
                for (std::size_t i = 0; i < reply.tool_calls.size(); ++i)
                    if (reply.tool_calls[i].id.empty())
                        reply.tool_calls[i].id = "call_" + role + "_" + std::to_string(number) + "_" + std::to_string(i + 1);
                reply.text = j.value("reply", "");
            } else {
                reply.text = j.at("reply").get<std::string>();
            }
            replies[role].push_back(std::move(reply));
        } catch (const std::exception& e) {
            return make_error(where + "expected {\"role\": ..., \"reply\": ...} or {\"role\": ..., \"tool_calls\": [...]}: " + e.what());
        }
    }
    if (replies.empty()) return make_error(script.string() + ": the script has no replies");
    return std::make_shared<ScriptedChatClient>(std::move(replies), script.string());
}

ScriptedChatClient::ScriptedChatClient(std::map<std::string, std::vector<ScriptedReply>> replies, std::string source)
    : replies_(std::move(replies)), source_(std::move(source)) {}

Result<ChatReply> ScriptedChatClient::complete(const ChatRequest& request) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = replies_.find(request.purpose);
    size_t& next = next_[request.purpose];
    if (it == replies_.end() || next >= it->second.size())
        return make_error("the LLM script has no more replies for the " + request.purpose);
    ChatReply reply;
    const ScriptedReply& scripted = it->second[next++];
    reply.text = scripted.text;
    reply.tool_calls = scripted.tool_calls;
    reply.finish_reason = scripted.tool_calls.empty() ? "stop" : "tool_calls";
    reply.model = "script";
    size_t prompt_chars = 0;
    for (const auto& m : request.messages) prompt_chars += m.content.size();
    reply.usage.tokens_in = static_cast<std::int64_t>(prompt_chars / 4);  // a rough count, marked as estimated
    reply.usage.tokens_out = static_cast<std::int64_t>(reply.text.size() / 4);
    reply.usage.estimated = true;
    ++served_;
    return reply;
}

size_t ScriptedChatClient::served() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return served_;
}

void ScriptedChatClient::skip_served(const std::vector<std::string>& purposes) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& purpose : purposes) ++next_[purpose];
}

KP_REGISTER_LLM_PROVIDER(LlmProvider{
    "script", {}, "answers from a hand-written JSONL file of replies: script:FILE.jsonl", "", "", true,
    [](const LlmConfig& config, std::shared_ptr<SpendTracker>) -> Result<std::shared_ptr<ChatClient>> {
        auto opened = ScriptedChatClient::open(config.spec.model);
        if (!opened) return opened.error();
        return std::shared_ptr<ChatClient>(std::move(*opened));
    }})

}  // namespace kp::llm
