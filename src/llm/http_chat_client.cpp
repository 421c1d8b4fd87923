#include "llm/http_chat_client.h"

#include <fmt/format.h>

#include <thread>

#include "common/stopwatch.h"
#include "common/utf8.h"

namespace kp::llm {

namespace {

// Roughly four characters per token for English and code; used only when the server is silent.
std::int64_t estimate_tokens(std::size_t characters) { return static_cast<std::int64_t>((characters + 3) / 4); }

std::string describe_failure(TransportFailure failure, const std::string& error, std::chrono::milliseconds timeout) {
    switch (failure) {
        case TransportFailure::timeout:
            return fmt::format("no reply within {:.1f} s ({})", static_cast<double>(timeout.count()) / 1000.0, error);
        case TransportFailure::connection:
            return "connection failed: " + error;
        default:
            return error;
    }
}

}  // namespace

HttpChatClient::HttpChatClient(LlmConfig config, std::unique_ptr<ChatProtocol> protocol, PriceTable prices,
                               std::shared_ptr<SpendTracker> spend, std::shared_ptr<HttpTransport> transport,
                               Sleeper sleeper)
    : config_(std::move(config)),
      prices_(std::move(prices)),
      spend_(std::move(spend)),
      transport_(transport ? std::move(transport) : std::make_shared<CurlTransport>()),
      sleeper_(sleeper ? std::move(sleeper) : Sleeper([](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); })),
      protocol_(std::move(protocol)),
      rng_(std::random_device{}()) {
    endpoint_ = protocol_->endpoint(config_.base_url.empty() ? protocol_->default_base_url() : config_.base_url);
}

Result<std::shared_ptr<ChatClient>> make_http_client(const LlmConfig& config, std::unique_ptr<ChatProtocol> protocol,
                                                     std::shared_ptr<SpendTracker> spend) {
    PriceTable prices = PriceTable::defaults();
    if (!config.price_file.empty()) {
        auto loaded = PriceTable::load(config.price_file);
        if (!loaded) return loaded.error();
        prices = std::move(*loaded);
    }
    return std::shared_ptr<ChatClient>(
        std::make_shared<HttpChatClient>(config, std::move(protocol), std::move(prices), std::move(spend)));
}

std::string HttpChatClient::describe() const { return config_.spec.to_string() + " at " + endpoint_; }

Result<ChatReply> HttpChatClient::complete(const ChatRequest& request) {
    const auto start = std::chrono::steady_clock::now();
    RequestSettings settings{config_.spec.model, request.max_tokens > 0 ? request.max_tokens : config_.max_tokens,
                             request.temperature >= 0 ? request.temperature : config_.temperature};
    const nlohmann::json body = protocol_->build_request(request, settings);
    int attempts = 0;
    auto reply = post_with_retries(request, body, attempts);
    const double elapsed = seconds_since(start);
    if (!reply) {
        if (spend_) spend_->add_failure(elapsed);
        return make_error(describe() + ": " + reply.error().message);
    }
    reply->usage.latency_s = elapsed;
    reply->attempts = attempts;
    prices_.price(config_.spec.model, reply->usage);
    if (spend_) spend_->add_reply(reply->usage);
    return reply;
}

Result<ChatReply> HttpChatClient::post_with_retries(const ChatRequest& request, const nlohmann::json& body,
                                                       int& attempts) {
    HttpRequest http{endpoint_, protocol_->headers(config_.api_key), dump_json(body), config_.timeout,
                     std::min(config_.timeout, std::chrono::milliseconds(10000))};
    const int max_attempts = 1 + std::max(config_.retry.max_retries, 0);
    std::string last_problem;
    for (int attempt = 0; attempt < max_attempts; ++attempt) {
        attempts = attempt + 1;
        HttpOutcome outcome = transport_->post(http);
        std::optional<std::chrono::milliseconds> retry_after;

        if (outcome.failure != TransportFailure::none) {
            last_problem = describe_failure(outcome.failure, outcome.error, config_.timeout);
            if (outcome.failure == TransportFailure::other) return make_error(last_problem);
        } else if (outcome.response.status >= 200 && outcome.response.status < 300) {
            const auto json = nlohmann::json::parse(outcome.response.body, nullptr, /*allow_exceptions=*/false);
            if (json.is_discarded()) return make_error("reply is not JSON: " + describe_error_body(outcome.response.body));
            auto parsed = protocol_->parse_reply(json);
            if (!parsed) return parsed.error();
            ChatReply reply;
            reply.text = std::move(parsed->text);
            reply.tool_calls = std::move(parsed->tool_calls);
            reply.finish_reason = std::move(parsed->finish_reason);
            reply.model = parsed->model.empty() ? config_.spec.model : parsed->model;
            std::size_t prompt_chars = 0;
            for (const auto& m : request.messages) prompt_chars += m.content.size();
            reply.usage.estimated = !parsed->tokens_in || !parsed->tokens_out;
            reply.usage.tokens_in = parsed->tokens_in.value_or(estimate_tokens(prompt_chars));
            std::size_t reply_chars = reply.text.size();
            for (const auto& call : reply.tool_calls) reply_chars += call.name.size() + call.arguments.dump().size();
            reply.usage.tokens_out = parsed->tokens_out.value_or(estimate_tokens(reply_chars));
            reply.raw_request = body;
            reply.raw_reply = json;
            return reply;
        } else {
            const long status = outcome.response.status;
            last_problem = fmt::format("HTTP {}: {}", status, describe_error_body(outcome.response.body));
            if (!is_retryable_status(status)) return make_error(last_problem);
            if (auto it = outcome.response.headers.find("retry-after"); it != outcome.response.headers.end())
                retry_after = parse_retry_after(it->second);
        }

        if (attempt + 1 == max_attempts) break;
        std::chrono::milliseconds delay;
        if (retry_after) {
            if (*retry_after > config_.retry.max_retry_after)
                return make_error(fmt::format("{}; the server asks to retry after {:.0f} s, more than the {:.0f} s limit",
                                              last_problem, retry_after->count() / 1000.0,
                                              config_.retry.max_retry_after.count() / 1000.0));
            delay = *retry_after;
        } else {
            std::lock_guard lock(rng_mutex_);
            delay = backoff_delay(config_.retry, attempt, rng_);
        }
        sleeper_(delay);
    }
    return make_error(fmt::format("gave up after {} attempt{}: {}", max_attempts, max_attempts == 1 ? "" : "s",
                                  last_problem));
}

}  // namespace kp::llm
