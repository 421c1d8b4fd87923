#include "report/javascript_libraries.h"

#include <cstdlib>

#include "common/files.h"

namespace kp::report {

namespace {
// The first file of `candidates` (relative to root) that reads; the library stays empty otherwise.
JavascriptLibrary load(const std::filesystem::path& root, std::string name, std::string package,
                       const std::vector<std::string>& candidates, const std::string& css) {
    JavascriptLibrary library{std::move(name), std::move(package), {}, {}, {}};
    for (const auto& relative : candidates) {
        auto code = read_text_file(root / relative);
        if (!code.ok() || code->empty()) continue;
        library.code = std::move(*code);
        library.path = root / relative;
        break;
    }
    if (library.found() && !css.empty())
        if (auto sheet = read_text_file(root / css); sheet.ok()) library.css = std::move(*sheet);
    if (library.path.empty()) library.path = root / candidates.front();
    return library;
}
}  // namespace

std::vector<std::string> JavascriptLibraries::missing() const {
    std::vector<std::string> lines;
    for (const auto* library : {&d3, &highlight})
        if (!library->found())
            lines.push_back(library->name + " (Debian " + library->package + ") not found at " + library->path.string() +
                            ": install it (scripts/setup does) to get " +
                            (library == &d3 ? "the tree and the charts" : "syntax highlighting"));
    return lines;
}

JavascriptLibraries load_javascript_libraries(const std::filesystem::path& root) {
    JavascriptLibraries libraries;
    libraries.d3 = load(root, "d3", "libjs-d3", {"d3/d3.min.js", "d3/d3.js"}, "");
    libraries.highlight = load(root, "highlight.js", "libjs-highlight.js",
                               {"highlight.js/highlight.min.js", "highlight.js/highlight.js"},
                               "highlight.js/styles/github.css");
    return libraries;
}

JavascriptLibraries load_javascript_libraries() {
    const char* dir = std::getenv("KERNELPRO_JAVASCRIPT_DIR");
    return load_javascript_libraries(dir && *dir ? std::filesystem::path(dir) : std::filesystem::path("/usr/share/javascript"));
}

}  // namespace kp::report
