// Parses a TOML document for the LLM settings and price files, turning a syntax error into
// "source:line: what" (the two readers share it).
#pragma once

#include <string>

#include <toml++/toml.h>

#include "common/result.h"

namespace kp::llm {

Result<toml::table> parse_toml_document(const std::string& text, const std::string& source);

}  // namespace kp::llm
