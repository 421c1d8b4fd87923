#include "llm/toml_document.h"

#include <sstream>

namespace kp::llm {

Result<toml::table> parse_toml_document(const std::string& text, const std::string& source) {
    try {
        return toml::parse(text, source);
    } catch (const toml::parse_error& e) {
        std::ostringstream where;
        where << source << ":" << e.source().begin.line << ": " << e.description();
        return make_error(where.str());
    }
}

}  // namespace kp::llm
