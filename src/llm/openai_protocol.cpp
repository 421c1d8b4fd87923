// The openai provider: OpenAI-compatible chat completions, POST {base}/chat/completions. The same
// body works for OpenAI, vLLM, SGLang, llama.cpp server and Ollama's /v1 endpoint.
#include "llm/chat_protocol.h"
#include "llm/http_chat_client.h"
#include "llm/llm_provider.h"

namespace kp::llm {

namespace {

// OpenAI's reasoning models reject `max_tokens` and any temperature but the default.
bool is_openai_reasoning_model(const std::string& model) {
    for (const char* prefix : {"o1", "o3", "o4", "gpt-5"})
        if (model.rfind(prefix, 0) == 0) return true;
    return false;
}

// `content` is a string, or (newer servers) a list of parts like {"type":"text","text":"..."}.
std::optional<std::string> content_text(const nlohmann::json& content) {
    if (content.is_string()) return content.get<std::string>();
    if (!content.is_array()) return std::nullopt;
    std::string text;
    for (const auto& part : content)
        if (part.is_object() && part.value("type", "") == "text" && part.contains("text") && part["text"].is_string())
            text += part["text"].get<std::string>();
    return text;
}

// Arguments travel as a JSON-encoded string; text that is not JSON is kept as the string it was.
nlohmann::json arguments_from_wire(const nlohmann::json& arguments) {
    if (!arguments.is_string()) return arguments.is_null() ? nlohmann::json::object() : arguments;
    auto parsed = nlohmann::json::parse(arguments.get<std::string>(), nullptr, /*allow_exceptions=*/false);
    return parsed.is_discarded() ? arguments : parsed;
}

nlohmann::json message_to_wire(const ChatMessage& m) {
    if (m.role == "tool") return {{"role", "tool"}, {"tool_call_id", m.tool_call_id}, {"content", m.content}};
    if (m.tool_calls.empty()) return {{"role", m.role}, {"content", m.content}};
    nlohmann::json calls = nlohmann::json::array();
    for (const auto& call : m.tool_calls)
        calls.push_back({{"id", call.id},
                         {"type", "function"},
                         {"function",
                          {{"name", call.name},
                           {"arguments", call.arguments.is_string() ? call.arguments.get<std::string>() : call.arguments.dump()}}}});
    return {{"role", m.role}, {"content", m.content.empty() ? nlohmann::json(nullptr) : nlohmann::json(m.content)},
            {"tool_calls", calls}};
}

std::vector<ToolCall> tool_calls_from_wire(const nlohmann::json& message) {
    std::vector<ToolCall> calls;
    if (!message.contains("tool_calls") || !message["tool_calls"].is_array()) return calls;
    for (const auto& item : message["tool_calls"]) {
        if (!item.is_object() || !item.contains("function") || !item["function"].is_object()) continue;
        const auto& function = item["function"];
        ToolCall call;
        call.id = item.value("id", "");
        call.name = function.value("name", "");
        call.arguments = arguments_from_wire(function.value("arguments", nlohmann::json()));
        calls.push_back(std::move(call));
    }
    return calls;
}

class OpenAiProtocol final : public ChatProtocol {
public:
    std::string default_base_url() const override { return "https://api.openai.com/v1"; }
    std::string endpoint(const std::string& base_url) const override {
        return trim_base_url(base_url) + "/chat/completions";
    }
    std::vector<std::pair<std::string, std::string>> headers(const std::string& api_key) const override {
        std::vector<std::pair<std::string, std::string>> h{{"Content-Type", "application/json"}};
        if (!api_key.empty()) h.emplace_back("Authorization", "Bearer " + api_key);
        return h;
    }

    nlohmann::json build_request(const ChatRequest& request, const RequestSettings& settings) const override {
        nlohmann::json messages = nlohmann::json::array();
        for (const auto& m : request.messages) messages.push_back(message_to_wire(m));
        nlohmann::json body{{"model", settings.model}, {"messages", messages}};
        if (!request.tools.empty()) {
            nlohmann::json tools = nlohmann::json::array();
            for (const auto& tool : request.tools)
                tools.push_back({{"type", "function"},
                                 {"function", {{"name", tool.name}, {"description", tool.description}, {"parameters", tool.parameters}}}});
            body["tools"] = tools;
            if (!request.allow_tool_calls) body["tool_choice"] = "none";
        }
        const bool reasoning = is_openai_reasoning_model(settings.model);
        if (settings.max_tokens > 0) body[reasoning ? "max_completion_tokens" : "max_tokens"] = settings.max_tokens;
        if (settings.temperature >= 0 && !reasoning) body["temperature"] = settings.temperature;
        return body;
    }

    Result<ParsedReply> parse_reply(const nlohmann::json& body) const override {
        if (!body.is_object()) return make_error("reply is not a JSON object");
        if (!body.contains("choices") || !body["choices"].is_array() || body["choices"].empty())
            return make_error("reply JSON has no choices");
        const auto& choice = body["choices"][0];
        if (!choice.is_object() || !choice.contains("message") || !choice["message"].is_object())
            return make_error("reply JSON: choices[0] has no message");
        const auto& message = choice["message"];
        ParsedReply reply;
        reply.tool_calls = tool_calls_from_wire(message);
        auto text = message.contains("content") ? content_text(message["content"]) : std::nullopt;
        if ((!text || text->empty()) && reply.tool_calls.empty()) {
            if (message.contains("refusal") && message["refusal"].is_string())
                return make_error("the model refused: " + message["refusal"].get<std::string>());
            return make_error("reply JSON: choices[0].message has no text content");
        }
        if (text) reply.text = std::move(*text);
        if (choice.contains("finish_reason") && choice["finish_reason"].is_string())
            reply.finish_reason = choice["finish_reason"].get<std::string>();
        if (body.contains("model") && body["model"].is_string()) reply.model = body["model"].get<std::string>();
        if (body.contains("usage") && body["usage"].is_object()) {
            const auto& usage = body["usage"];
            if (usage.contains("prompt_tokens") && usage["prompt_tokens"].is_number_integer())
                reply.tokens_in = usage["prompt_tokens"].get<std::int64_t>();
            if (usage.contains("completion_tokens") && usage["completion_tokens"].is_number_integer())
                reply.tokens_out = usage["completion_tokens"].get<std::int64_t>();
        }
        return reply;
    }
};

}  // namespace

std::unique_ptr<ChatProtocol> make_openai_protocol() { return std::make_unique<OpenAiProtocol>(); }

KP_REGISTER_LLM_PROVIDER(LlmProvider{
    "openai",
    {"oai", "vllm", "sglang", "llamacpp", "ollama"},
    "OpenAI chat completions, or any OpenAI-compatible server (vLLM, SGLang, llama.cpp, Ollama) at a base URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    false,
    [](const LlmConfig& config, std::shared_ptr<SpendTracker> spend) {
        return make_http_client(config, make_openai_protocol(), std::move(spend));
    }})

}  // namespace kp::llm
