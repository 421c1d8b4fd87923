// Text from outside kernelpro (compiler output, file paths, source comments, what a candidate
// prints) may hold any bytes, but JSON and the terminal need valid UTF-8 (nlohmann's dump throws
// on anything else). Every such boundary passes its text through here.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace kp {

bool is_valid_utf8(std::string_view bytes);

// `bytes` with every invalid sequence (stray continuation bytes, overlong forms, surrogates,
// truncated sequences, 0xFE/0xFF) replaced by U+FFFD; valid text is returned unchanged.
std::string valid_utf8(std::string_view bytes);

// valid_utf8, and control characters (newlines included) written as \n, \t or \xNN, so text
// quoted from a file (a TOML key, a source line) stays on the one line of its message.
std::string one_line(std::string_view bytes);

// A path as text for a message or a JSON value (non-UTF-8 file names are legal on Linux).
std::string path_text(const std::filesystem::path& path);

// json.dump() that never throws: any invalid UTF-8 left in a string value becomes U+FFFD.
std::string dump_json(const nlohmann::json& value, int indent = -1);

}  // namespace kp
