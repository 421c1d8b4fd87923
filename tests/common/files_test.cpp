#include <gtest/gtest.h>

#include <filesystem>
#include <optional>

#include "common/files.h"

namespace fs = std::filesystem;

// The scratch folder and what was written into it go when the owner does, early return or not;
// a moved-from owner removes nothing.
TEST(ScratchDirectory, RemovedWithItsContentsWhenItsOwnerGoes) {
    fs::path kept;
    {
        auto scratch = kp::ScratchDirectory::create("kp-scratch-test-");
        ASSERT_TRUE(scratch) << scratch.error().message;
        kept = scratch->path();
        fs::create_directories(kept / "sub");
        ASSERT_TRUE(kp::write_file_atomically(kept / "sub" / "file.txt", "x"));
        EXPECT_TRUE(fs::exists(kept / "sub" / "file.txt"));
        std::optional<kp::ScratchDirectory> moved;
        moved.emplace(std::move(*scratch));
        EXPECT_EQ(moved->path(), kept);
        EXPECT_TRUE(scratch->path().empty());
    }
    EXPECT_FALSE(fs::exists(kept));
}
