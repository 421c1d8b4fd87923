#include "llm/scripted_chat_client.h"

#include <fstream>

#include <nlohmann/json.hpp>

#include "llm/llm_provider.h"

namespace kp::llm {

Result<std::shared_ptr<ScriptedChatClient>> ScriptedChatClient::open(const std::filesystem::path& script) {
    std::ifstream in(script);
    if (!in) return make_error("cannot read LLM script " + script.string());
    std::map<std::string, std::vector<std::string>> replies;
    int number = 0;
    for (std::string line; std::getline(in, line);) {
        ++number;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        try {
            auto j = nlohmann::json::parse(line);
            replies[j.at("role").get<std::string>()].push_back(j.at("reply").get<std::string>());
        } catch (const std::exception& e) {
            return make_error(script.string() + ":" + std::to_string(number) + ": expected {\"role\": ..., \"reply\": ...}: " + e.what());
        }
    }
    if (replies.empty()) return make_error(script.string() + ": the script has no replies");
    return std::make_shared<ScriptedChatClient>(std::move(replies), script.string());
}

ScriptedChatClient::ScriptedChatClient(std::map<std::string, std::vector<std::string>> replies, std::string source)
    : replies_(std::move(replies)), source_(std::move(source)) {}

Result<ChatReply> ScriptedChatClient::complete(const ChatRequest& request) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = replies_.find(request.purpose);
    size_t& next = next_[request.purpose];
    if (it == replies_.end() || next >= it->second.size())
        return make_error("the LLM script has no more replies for the " + request.purpose);
    ChatReply reply;
    reply.text = it->second[next++];
    reply.finish_reason = "stop";
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
