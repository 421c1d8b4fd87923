// The recorded files under tests/gpu/fixtures (tests/source_tree.h finds the checkout).
#pragma once

#include <string>

#include "../source_tree.h"

inline std::string gpu_fixture(const std::string& name) { return kp::testing::source_path("tests/gpu/fixtures/" + name).string(); }
