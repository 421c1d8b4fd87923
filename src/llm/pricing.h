// What LLM calls cost: a price table (per 1M tokens in and out) and a running spend total that the
// search loop's budget checks read.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "common/result.h"
#include "llm/chat_client.h"

namespace kp::llm {

struct ModelPrice {
    double input_per_million = 0.0;
    double output_per_million = 0.0;
};

class PriceTable {
public:
    // A few well-known hosted models (list prices in USD, mid 2025). Local models cost nothing,
    // but are still reported as unpriced unless the table names them.
    static PriceTable defaults();

    // TOML: [models."gpt-4.1"] input_per_million = 2.0, output_per_million = 8.0.
    // Entries are added on top of `base` (defaults() unless told otherwise).
    static Result<PriceTable> load(const std::filesystem::path& path, PriceTable base = defaults());
    static Result<PriceTable> parse(const std::string& toml_text, const std::string& source_name,
                                    PriceTable base = defaults());

    void set(const std::string& model, ModelPrice price) { prices_[model] = price; }

    // Exact name first, then the longest table entry that prefixes the model name, so
    // "claude-sonnet-4-20250514" is priced as "claude-sonnet-4". A provider prefix such as
    // "openai/" is ignored.
    std::optional<ModelPrice> find(const std::string& model) const;

    // Fills usage.cost and usage.priced from the token counts.
    void price(const std::string& model, Usage& usage) const;

private:
    std::map<std::string, ModelPrice> prices_;
};

struct Spend {
    std::int64_t tokens_in = 0;
    std::int64_t tokens_out = 0;
    double cost = 0.0;
    std::int64_t requests = 0;           // calls that got a reply
    std::int64_t failed_requests = 0;    // calls that ended in an error
    std::int64_t unpriced_requests = 0;  // replies from models missing from the price table
    double latency_s = 0.0;              // summed wall time of all calls
};

// Limits of zero or less mean "no limit".
struct SpendLimit {
    double max_cost = 0.0;
    std::int64_t max_tokens = 0;
    std::int64_t max_requests = 0;
};

// nullopt while within the limit; else why not, e.g. "LLM cost $5.02 reached the $5.00 limit".
std::optional<std::string> exceeded_limit(const Spend& spend, const SpendLimit& limit);

// Thread-safe running totals, shared by every client of one run.
class SpendTracker {
public:
    void add_reply(const Usage& usage);
    void add_failure(double latency_s);
    Spend snapshot() const;

private:
    mutable std::mutex mutex_;
    Spend spend_;
};

}  // namespace kp::llm
