// The resource locator's precedence: a set variable first, then the install prefix around the
// running executable, then the build tree that holds it. This test program lives in
// build/tests/common/, so its "prefix" is build/tests and its build tree is build/.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "common/files.h"
#include "common/resource_locator.h"

namespace fs = std::filesystem;

namespace {

// Sets an environment variable for one scope and puts the old value back.
class ScopedVariable {
public:
    ScopedVariable(const char* name, const std::string& value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        ::setenv(name, value.c_str(), 1);
    }
    ~ScopedVariable() {
        if (old_) ::setenv(name_, old_->c_str(), 1);
        else ::unsetenv(name_);
    }

private:
    const char* name_;
    std::optional<std::string> old_;
};

fs::path build_tree() {
    auto self = kp::running_executable();
    EXPECT_TRUE(self.has_value());
    auto tree = kp::enclosing_build_tree(*self);
    EXPECT_TRUE(tree.has_value()) << "no CMakeCache.txt above " << self->string();
    return tree.value_or(fs::path());
}

}  // namespace

TEST(ResourceLocator, FindsTheBuildTreeAboveTheExecutableAndNothingAboveAStrayFolder) {
    auto scratch = kp::ScratchDirectory::create("kp-locator-test-");
    ASSERT_TRUE(scratch) << scratch.error().message;
    const fs::path tree = scratch->path() / "build";
    fs::create_directories(tree / "tests" / "common");
    std::ofstream(tree / "CMakeCache.txt") << "# a build tree\n";
    EXPECT_EQ(kp::enclosing_build_tree(tree / "tests" / "common" / "program"), tree);
    EXPECT_EQ(kp::enclosing_build_tree(tree / "program"), tree);
    EXPECT_FALSE(kp::enclosing_build_tree(scratch->path() / "elsewhere" / "bin" / "program").has_value());
}

// Without a variable, the places are the prefix around the executable, then the build tree.
TEST(ResourceLocator, LooksBesideTheExecutableBeforeTheBuildTree) {
    auto self = kp::running_executable();
    ASSERT_TRUE(self.has_value());
    const fs::path prefix = self->parent_path().parent_path();
    auto candidates = kp::resource_candidates({"a file", "", "", {"share/kernelpro/x", "lib/x"}});
    ASSERT_EQ(candidates.size(), 4u);
    EXPECT_EQ(candidates[0], prefix / "share/kernelpro/x");
    EXPECT_EQ(candidates[1], prefix / "lib/x");
    EXPECT_EQ(candidates[2], build_tree() / "share/kernelpro/x");
    EXPECT_EQ(candidates[3], build_tree() / "lib/x");
}

// The build tree is laid out like an install prefix, so a test program finds what kernelpro ships.
TEST(ResourceLocator, FindsTheShippedFilesInTheBuildTree) {
    auto prompts = kp::locate_prompts_directory();
    ASSERT_TRUE(prompts) << prompts.error().message;
    EXPECT_EQ(*prompts, build_tree() / "share/kernelpro/prompts");
    EXPECT_TRUE(fs::exists(*prompts / "coder.md"));
    auto abi = kp::locate_abi_header();
    ASSERT_TRUE(abi) << abi.error().message;
    EXPECT_EQ(*abi, build_tree() / "include/kernelpro/abi.h");
}

TEST(ResourceLocator, AVariableThatIsSetWins) {
    auto scratch = kp::ScratchDirectory::create("kp-locator-test-");
    ASSERT_TRUE(scratch) << scratch.error().message;
    ScopedVariable prompts("KERNELPRO_PROMPTS_DIR", scratch->path().string());
    auto found = kp::locate_prompts_directory();
    ASSERT_TRUE(found) << found.error().message;
    EXPECT_EQ(*found, scratch->path());
}

// A typo in a variable must not silently pick up another copy.
TEST(ResourceLocator, AVariableNamingNothingIsAnErrorThatSaysSo) {
    ScopedVariable prompts("KERNELPRO_PROMPTS_DIR", "/nonexistent/kp-prompts");
    auto found = kp::locate_prompts_directory();
    ASSERT_FALSE(found);
    EXPECT_NE(found.error().message.find("$KERNELPRO_PROMPTS_DIR=/nonexistent/kp-prompts does not exist"), std::string::npos)
        << found.error().message;
    ScopedVariable helpers("KERNELPRO_HELPER_DIR", "/nonexistent/kp-helpers");
    EXPECT_FALSE(kp::locate_helper("libkp_timeline.so"));
}

// A helper folder that exists need not hold every helper: the usual places follow it, and the
// error for a helper found nowhere names each place looked at, the folder first.
TEST(ResourceLocator, AHelperFolderWithoutTheFileFallsThroughToTheUsualPlaces) {
    auto scratch = kp::ScratchDirectory::create("kp-locator-test-");
    ASSERT_TRUE(scratch) << scratch.error().message;
    ScopedVariable helpers("KERNELPRO_HELPER_DIR", scratch->path().string());
    std::ofstream(scratch->path() / "libkp_present.so") << "x";
    auto present = kp::locate_helper("libkp_present.so");
    ASSERT_TRUE(present) << present.error().message;
    EXPECT_EQ(*present, scratch->path() / "libkp_present.so");

    auto missing = kp::locate_helper("libkp_no_such_helper.so");
    ASSERT_FALSE(missing);
    const std::string& message = missing.error().message;
    const auto in_folder = message.find((scratch->path() / "libkp_no_such_helper.so").string());
    const auto in_tree = message.find((build_tree() / "lib" / "libkp_no_such_helper.so").string());
    EXPECT_NE(in_folder, std::string::npos) << message;
    EXPECT_NE(in_tree, std::string::npos) << message;
    EXPECT_LT(in_folder, in_tree) << message;
}
