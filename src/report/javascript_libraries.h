// The chart and highlighting libraries the report inlines, read from Debian's packages at report
// time (never fetched by the page): d3 (libjs-d3) draws the tree and charts as SVG, highlight.js
// (libjs-highlight.js) colours the diff. A missing one is named, with its package, so the report
// and the command can say what is not drawn and why.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace kp::report {

struct JavascriptLibrary {
    std::string name;      // "d3"
    std::string package;   // "libjs-d3"
    std::string code;      // empty when missing
    std::string css;       // a stylesheet that comes with it, if any
    std::filesystem::path path;
    bool found() const { return !code.empty(); }
};

struct JavascriptLibraries {
    JavascriptLibrary d3, highlight;
    // One line per missing library: "d3 (Debian libjs-d3) not found in /usr/share/javascript: ..."
    std::vector<std::string> missing() const;
};

// Looks in $KERNELPRO_JAVASCRIPT_DIR when set, else /usr/share/javascript (where Debian's libjs-*
// packages install).
JavascriptLibraries load_javascript_libraries();
JavascriptLibraries load_javascript_libraries(const std::filesystem::path& root);

}  // namespace kp::report
