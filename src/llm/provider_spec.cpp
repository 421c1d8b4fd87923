#include "llm/provider_spec.h"

#include <algorithm>
#include <cctype>

#include "llm/llm_provider.h"

namespace kp::llm {

namespace {

std::string trim(std::string_view text) {
    auto is_space = [](unsigned char c) { return std::isspace(c) != 0; };
    while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
    while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
    return std::string(text);
}

}  // namespace

Result<ProviderSpec> parse_provider_spec(std::string_view raw) {
    const std::string text = trim(raw);
    const std::string usage = " (expected PROVIDER:MODEL, e.g. openai:gpt-4.1 or anthropic:claude-sonnet-4)";
    if (text.empty()) return make_error("empty LLM spec" + usage);
    const auto colon = text.find(':');
    if (colon == std::string::npos) return make_error("LLM spec '" + text + "' has no ':'" + usage);
    std::string provider = trim(std::string_view(text).substr(0, colon));
    std::string model = trim(std::string_view(text).substr(colon + 1));
    std::transform(provider.begin(), provider.end(), provider.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (provider.empty()) return make_error("LLM spec '" + text + "' names no provider" + usage);
    if (model.empty()) return make_error("LLM spec '" + text + "' names no model" + usage);
    auto found = llm_providers().lookup(provider);
    if (!found) return make_error("LLM spec '" + text + "': " + found.error().message);
    const bool spaced = std::any_of(model.begin(), model.end(), [](unsigned char c) { return std::isspace(c) != 0; });
    if (spaced && !(*found)->model_is_path)
        return make_error("LLM spec '" + text + "': the model name contains white space");
    return ProviderSpec{(*found)->name, model};
}

}  // namespace kp::llm
