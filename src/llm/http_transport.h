// One HTTP POST with a hard timeout, and nothing else: no retries, no JSON. The chat client adds
// those. An interface so a client can be tested against a fake as well as a real socket.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kp::llm {

struct HttpRequest {
    std::string url;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    std::chrono::milliseconds timeout{120000};          // whole request
    std::chrono::milliseconds connect_timeout{10000};
};

struct HttpResponse {
    long status = 0;
    std::string body;
    std::map<std::string, std::string> headers;  // names lower-cased; the last value wins
};

enum class TransportFailure {
    none,        // a response arrived (any status)
    timeout,     // no complete response within the timeout
    connection,  // could not connect, or the connection broke
    other,       // bad URL, TLS setup, ...: retrying will not help
};

struct HttpOutcome {
    TransportFailure failure = TransportFailure::none;
    std::string error;  // set when failure != none
    HttpResponse response;
};

class HttpTransport {
public:
    virtual ~HttpTransport() = default;
    virtual HttpOutcome post(const HttpRequest& request) = 0;
};

// libcurl. Safe to use from several threads at once (one easy handle per request).
class CurlTransport final : public HttpTransport {
public:
    CurlTransport();
    HttpOutcome post(const HttpRequest& request) override;
};

}  // namespace kp::llm
