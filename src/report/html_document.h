// Assembles the self-contained report page: the model (JSON, in a data block), d3 and
// highlight.js inlined when found, the page's own script and stylesheet, and a content security
// policy that forbids every network request, so the file opens the same offline as online.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "report/javascript_libraries.h"

namespace kp::report {

struct HtmlReport {
    std::string html;
    std::vector<std::string> notices;  // what the page could not include (a missing library), also shown on it
};

// The policy in the page's <meta>: inline scripts and styles only, images from data: URLs only.
extern const char* const kContentSecurityPolicy;

HtmlReport render_report_html(const nlohmann::json& model, const JavascriptLibraries& libraries);

}  // namespace kp::report
