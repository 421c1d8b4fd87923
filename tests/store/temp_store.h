// Test helper: a fresh store file in a private temporary directory, removed afterwards.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>

#include "common/files.h"

namespace kp::test_support {

class TempDirectory {
public:
    TempDirectory() {
        auto made = make_temp_directory("kp-store-test");
        if (!made) throw std::runtime_error(made.error().message);
        path_ = *made;
    }
    ~TempDirectory() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

}  // namespace kp::test_support
