#include "llm/chat_protocol.h"

namespace kp::llm {

std::string trim_base_url(std::string base_url) {
    while (!base_url.empty() && base_url.back() == '/') base_url.pop_back();
    return base_url;
}

std::string describe_error_body(const std::string& body) {
    const auto parsed = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_object() && parsed.contains("error")) {
        const auto& error = parsed["error"];
        if (error.is_string()) return error.get<std::string>();
        if (error.is_object()) {
            std::string type = error.contains("type") && error["type"].is_string() ? error["type"].get<std::string>() : "";
            std::string message =
                error.contains("message") && error["message"].is_string() ? error["message"].get<std::string>() : "";
            if (!type.empty() && !message.empty()) return type + ": " + message;
            if (!message.empty()) return message;
            if (!type.empty()) return type;
        }
    }
    constexpr std::size_t kShown = 300;
    std::string shown = body.substr(0, kShown);
    for (char& c : shown)
        if (c == '\n' || c == '\r') c = ' ';
    if (body.size() > kShown) shown += "...";
    return shown.empty() ? "(empty body)" : shown;
}

}  // namespace kp::llm
