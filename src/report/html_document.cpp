#include "report/html_document.h"

#include <nlohmann/json.hpp>

#include "report/page_assets.h"

namespace kp::report {

const char* const kContentSecurityPolicy =
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; "
    "connect-src 'none'; form-action 'none'; base-uri 'none'";

namespace {

std::string html_escape(const std::string& text) {
    std::string out;
    for (char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            default: out += c;
        }
    }
    return out;
}

// Inside <script>, only "</script" can end the block early; "<\/" means the same in JavaScript
// strings and regular expressions.
std::string script_safe(std::string code) {
    for (size_t at = 0; (at = code.find("</", at)) != std::string::npos; at += 3) {
        std::string tag = code.substr(at + 2, 6);
        for (auto& c : tag) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (tag == "script") code.replace(at, 2, "<\\/");
    }
    return code;
}

// JSON in a data block: ASCII only (bytes that are not UTF-8 become U+FFFD) and no '<' at all.
std::string json_block(const nlohmann::json& model) {
    std::string text = model.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
    std::string out;
    out.reserve(text.size());
    for (char c : text) out += c == '<' ? std::string("\\u003c") : std::string(1, c);
    return out;
}

std::string title_of(const nlohmann::json& model) {
    if (model.value("kind", "") == "bench") return "kernelpro bench report";
    return "kernelpro report: " + model["run"].value("task", std::string()) + ", run " +
           std::to_string(model["run"].value("id", 0));
}

}  // namespace

HtmlReport render_report_html(const nlohmann::json& model, const JavascriptLibraries& libraries) {
    HtmlReport report;
    report.notices = libraries.missing();
    std::string html = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
    html += "<meta http-equiv=\"Content-Security-Policy\" content=\"" + std::string(kContentSecurityPolicy) + "\">\n";
    html += "<title>" + html_escape(title_of(model)) + "</title>\n";
    // Records any request the policy blocked, for tests and the curious (data-blocked-requests).
    html += "<script>document.addEventListener('securitypolicyviolation', function (e) { var r = document.documentElement;"
            " r.dataset.blockedRequests = (r.dataset.blockedRequests ? r.dataset.blockedRequests + ' ' : '') + e.blockedURI; });</script>\n";
    html += "<style>\n" + libraries.highlight.css + "\n" + std::string(page_asset("report.css")) + "\n</style>\n</head>\n<body>\n";
    html += "<header><h1 id=\"kp-title\">" + html_escape(title_of(model)) + "</h1><div id=\"kp-subtitle\" class=\"kp-sub\"></div></header>\n";
    for (const auto& notice : report.notices) html += "<div class=\"kp-notice\">" + html_escape(notice) + "</div>\n";
    html += "<main id=\"kp-report\"></main>\n";
    html += "<script type=\"application/json\" id=\"kp-data\">" + json_block(model) + "</script>\n";
    for (const auto* library : {&libraries.d3, &libraries.highlight})
        if (library->found()) html += "<script>\n" + script_safe(library->code) + "\n</script>\n";
    html += "<script>\n";
    for (const char* name : {"common.js", "run_view.js", "bench_view.js"}) html += script_safe(std::string(page_asset(name))) + "\n";
    html += "</script>\n</body></html>\n";
    report.html = std::move(html);
    return report;
}

}  // namespace kp::report
