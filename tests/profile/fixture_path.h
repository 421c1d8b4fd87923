// Locates the recorded fixtures in the source tree (tests/source_tree.h).
#pragma once

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "../source_tree.h"
#include "common/files.h"

namespace kp::testing {

inline std::filesystem::path fixture_path(const std::string& relative) {
    return source_path("tests/fixtures/" + relative);
}

inline std::string read_fixture(const std::string& relative) {
    auto text = kp::read_text_file(fixture_path(relative));
    if (!text) ADD_FAILURE() << "missing fixture " << relative << ": " << text.error().message;
    return text ? *text : std::string();
}

}  // namespace kp::testing
