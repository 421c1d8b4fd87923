// The anthropic provider: the Messages API, POST {base}/v1/messages with x-api-key and
// anthropic-version headers. System messages travel in a separate "system" field; the rest must
// alternate user/assistant.
#include "llm/chat_protocol.h"
#include "llm/http_chat_client.h"
#include "llm/llm_provider.h"

namespace kp::llm {

namespace {

constexpr const char* kAnthropicVersion = "2023-06-01";

// A message's content as a list of blocks (a plain string becomes one text block).
nlohmann::json as_blocks(const nlohmann::json& content) {
    if (content.is_array()) return content;
    return nlohmann::json::array({{{"type", "text"}, {"text", content.get<std::string>()}}});
}

// An assistant turn that called tools carries its text and one tool_use block per call; a tool
// result is a user turn's tool_result block.
nlohmann::json message_to_wire(const ChatMessage& m) {
    if (m.role == "tool") {
        nlohmann::json block{{"type", "tool_result"}, {"tool_use_id", m.tool_call_id}, {"content", m.content}};
        if (m.is_error) block["is_error"] = true;
        return {{"role", "user"}, {"content", nlohmann::json::array({block})}};
    }
    if (m.tool_calls.empty()) return {{"role", m.role}, {"content", m.content}};
    nlohmann::json blocks = nlohmann::json::array();
    if (!m.content.empty()) blocks.push_back({{"type", "text"}, {"text", m.content}});
    for (const auto& call : m.tool_calls)
        blocks.push_back({{"type", "tool_use"},
                          {"id", call.id},
                          {"name", call.name},
                          {"input", call.arguments.is_object() ? call.arguments : nlohmann::json::object()}});
    return {{"role", m.role}, {"content", blocks}};
}

class AnthropicProtocol final : public ChatProtocol {
public:
    std::string default_base_url() const override { return "https://api.anthropic.com"; }
    std::string endpoint(const std::string& base_url) const override {
        std::string base = trim_base_url(base_url);
        // Accept both "https://api.anthropic.com" and "https://api.anthropic.com/v1".
        if (base.size() >= 3 && base.compare(base.size() - 3, 3, "/v1") == 0) return base + "/messages";
        return base + "/v1/messages";
    }
    std::vector<std::pair<std::string, std::string>> headers(const std::string& api_key) const override {
        std::vector<std::pair<std::string, std::string>> h{{"Content-Type", "application/json"},
                                                           {"anthropic-version", kAnthropicVersion}};
        if (!api_key.empty()) h.emplace_back("x-api-key", api_key);
        return h;
    }

    nlohmann::json build_request(const ChatRequest& request, const RequestSettings& settings) const override {
        std::string system;
        nlohmann::json messages = nlohmann::json::array();
        for (const auto& m : request.messages) {
            if (m.role == "system") {
                system += (system.empty() ? "" : "\n\n") + m.content;
                continue;
            }
            nlohmann::json wire = message_to_wire(m);
            // Two user turns in a row are merged (tool results and a note after them are one user
            // turn): the API wants strict alternation.
            if (!messages.empty() && messages.back()["role"] == wire["role"]) {
                auto& previous = messages.back()["content"];
                if (previous.is_string() && wire["content"].is_string())
                    previous = previous.get<std::string>() + "\n\n" + wire["content"].get<std::string>();
                else {
                    previous = as_blocks(previous);
                    for (auto& block : as_blocks(wire["content"])) previous.push_back(std::move(block));
                }
                continue;
            }
            messages.push_back(std::move(wire));
        }
        // max_tokens is required by this API.
        nlohmann::json body{{"model", settings.model},
                            {"max_tokens", settings.max_tokens > 0 ? settings.max_tokens : 8192},
                            {"messages", messages}};
        if (!system.empty()) body["system"] = system;
        if (!request.tools.empty()) {
            nlohmann::json tools = nlohmann::json::array();
            for (const auto& tool : request.tools)
                tools.push_back({{"name", tool.name}, {"description", tool.description}, {"input_schema", tool.parameters}});
            body["tools"] = tools;
            if (!request.allow_tool_calls) body["tool_choice"] = {{"type", "none"}};
        }
        if (settings.temperature >= 0) body["temperature"] = settings.temperature;
        return body;
    }

    Result<ParsedReply> parse_reply(const nlohmann::json& body) const override {
        if (!body.is_object()) return make_error("reply is not a JSON object");
        if (body.value("type", "") == "error") return make_error("reply is an error: " + describe_error_body(body.dump()));
        if (!body.contains("content") || !body["content"].is_array())
            return make_error("reply JSON has no content array");
        ParsedReply reply;
        for (const auto& block : body["content"]) {
            if (!block.is_object()) continue;
            const std::string type = block.value("type", "");
            if (type == "text" && block.contains("text") && block["text"].is_string())
                reply.text += block["text"].get<std::string>();
            else if (type == "tool_use")
                reply.tool_calls.push_back({block.value("id", ""), block.value("name", ""),
                                            block.value("input", nlohmann::json::object())});
        }
        if (reply.text.empty() && reply.tool_calls.empty()) return make_error("reply JSON has no text content block");
        if (body.contains("stop_reason") && body["stop_reason"].is_string())
            reply.finish_reason = body["stop_reason"].get<std::string>();
        if (body.contains("model") && body["model"].is_string()) reply.model = body["model"].get<std::string>();
        if (body.contains("usage") && body["usage"].is_object()) {
            const auto& usage = body["usage"];
            auto count = [&](const char* key) -> std::int64_t {
                return usage.contains(key) && usage[key].is_number_integer() ? usage[key].get<std::int64_t>() : 0;
            };
            // Cached prompt tokens are still prompt tokens (priced differently, which we ignore).
            if (usage.contains("input_tokens"))
                reply.tokens_in =
                    count("input_tokens") + count("cache_creation_input_tokens") + count("cache_read_input_tokens");
            if (usage.contains("output_tokens")) reply.tokens_out = count("output_tokens");
        }
        return reply;
    }
};

}  // namespace

std::unique_ptr<ChatProtocol> make_anthropic_protocol() { return std::make_unique<AnthropicProtocol>(); }

KP_REGISTER_LLM_PROVIDER(LlmProvider{
    "anthropic",
    {"claude"},
    "Anthropic's Messages API",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    false,
    [](const LlmConfig& config, std::shared_ptr<SpendTracker> spend) {
        return make_http_client(config, make_anthropic_protocol(), std::move(spend));
    }})

}  // namespace kp::llm
