#include "llm/pricing.h"

#include <fmt/format.h>

#include <toml++/toml.h>

#include "common/files.h"
#include "llm/toml_document.h"

namespace kp::llm {

PriceTable PriceTable::defaults() {
    PriceTable table;
    table.set("gpt-4.1", {2.00, 8.00});
    table.set("gpt-4.1-mini", {0.40, 1.60});
    table.set("gpt-4.1-nano", {0.10, 0.40});
    table.set("gpt-4o", {2.50, 10.00});
    table.set("gpt-4o-mini", {0.15, 0.60});
    table.set("o3", {2.00, 8.00});
    table.set("o4-mini", {1.10, 4.40});
    table.set("claude-opus-4", {15.00, 75.00});
    table.set("claude-sonnet-4", {3.00, 15.00});
    table.set("claude-3-7-sonnet", {3.00, 15.00});
    table.set("claude-3-5-haiku", {0.80, 4.00});
    return table;
}

Result<PriceTable> PriceTable::parse(const std::string& text, const std::string& source, PriceTable base) {
    auto parsed = parse_toml_document(text, source);
    if (!parsed) return make_error("price table " + parsed.error().message);
    const toml::table& root = *parsed;
    const toml::table* models = root["models"].as_table();
    if (!models) return make_error("price table " + source + ": no [models] table");
    for (const auto& [name, node] : *models) {
        const std::string model(name.str());
        const toml::table* entry = node.as_table();
        const int line = static_cast<int>(node.source().begin.line);
        if (!entry) return make_error(fmt::format("{}:{}: models.\"{}\" must be a table", source, line, model));
        ModelPrice price;
        for (const auto& [key, value] : *entry) {
            auto number = value.value<double>();
            if (!number || *number < 0)
                return make_error(fmt::format("{}:{}: models.\"{}\".{} must be a non-negative number", source,
                                              value.source().begin.line, model, key.str()));
            if (key == "input_per_million") price.input_per_million = *number;
            else if (key == "output_per_million") price.output_per_million = *number;
            else
                return make_error(fmt::format("{}:{}: models.\"{}\": unknown key '{}' (expected input_per_million, "
                                              "output_per_million)",
                                              source, value.source().begin.line, model, key.str()));
        }
        if (!entry->contains("input_per_million") || !entry->contains("output_per_million"))
            return make_error(fmt::format("{}:{}: models.\"{}\" needs input_per_million and output_per_million",
                                          source, line, model));
        base.set(model, price);
    }
    return base;
}

Result<PriceTable> PriceTable::load(const std::filesystem::path& path, PriceTable base) {
    auto text = read_text_file(path);
    if (!text) return text.error();
    return parse(*text, path.string(), std::move(base));
}

std::optional<ModelPrice> PriceTable::find(const std::string& raw_model) const {
    std::string model = raw_model;
    if (auto slash = model.rfind('/'); slash != std::string::npos) {
        if (prices_.count(model)) return prices_.at(model);
        model = model.substr(slash + 1);
    }
    if (auto it = prices_.find(model); it != prices_.end()) return it->second;
    const ModelPrice* best = nullptr;
    std::size_t best_length = 0;
    for (const auto& [name, price] : prices_) {
        // A prefix must end at a separator, so "o3" does not price "o3x-something".
        const bool prefixes = model.size() > name.size() && model.compare(0, name.size(), name) == 0 &&
                              (model[name.size()] == '-' || model[name.size()] == '@' || model[name.size()] == ':');
        if (prefixes && name.size() > best_length) {
            best = &price;
            best_length = name.size();
        }
    }
    if (best) return *best;
    return std::nullopt;
}

void PriceTable::price(const std::string& model, Usage& usage) const {
    const auto found = find(model);
    usage.priced = found.has_value();
    if (!found) {
        usage.cost = 0.0;
        return;
    }
    usage.cost = (static_cast<double>(usage.tokens_in) * found->input_per_million +
                  static_cast<double>(usage.tokens_out) * found->output_per_million) /
                 1e6;
}

std::optional<std::string> exceeded_limit(const Spend& spend, const SpendLimit& limit) {
    if (limit.max_cost > 0 && spend.cost >= limit.max_cost)
        return fmt::format("LLM cost ${:.4f} reached the ${:.2f} limit", spend.cost, limit.max_cost);
    const auto tokens = spend.tokens_in + spend.tokens_out;
    if (limit.max_tokens > 0 && tokens >= limit.max_tokens)
        return fmt::format("LLM tokens {} reached the {} limit", tokens, limit.max_tokens);
    const auto requests = spend.requests + spend.failed_requests;
    if (limit.max_requests > 0 && requests >= limit.max_requests)
        return fmt::format("LLM requests {} reached the {} limit", requests, limit.max_requests);
    return std::nullopt;
}

void SpendTracker::add_reply(const Usage& usage) {
    std::lock_guard lock(mutex_);
    spend_.tokens_in += usage.tokens_in;
    spend_.tokens_out += usage.tokens_out;
    spend_.cost += usage.cost;
    spend_.requests += 1;
    if (!usage.priced) spend_.unpriced_requests += 1;
    spend_.latency_s += usage.latency_s;
}

void SpendTracker::add_failure(double latency_s) {
    std::lock_guard lock(mutex_);
    spend_.failed_requests += 1;
    spend_.latency_s += latency_s;
}

Spend SpendTracker::snapshot() const {
    std::lock_guard lock(mutex_);
    return spend_;
}

}  // namespace kp::llm
