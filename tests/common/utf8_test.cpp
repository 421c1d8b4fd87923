#include <gtest/gtest.h>

#include "common/utf8.h"

using kp::is_valid_utf8;
using kp::valid_utf8;

TEST(Utf8, ValidTextIsUnchanged) {
    for (std::string text : {"", "plain ascii", "\xC3\xA9t\xC3\xA9", "\xE2\x82\xAC 100", "\xF0\x9F\x98\x80", "\xF4\x8F\xBF\xBF"}) {
        EXPECT_TRUE(is_valid_utf8(text)) << text;
        EXPECT_EQ(valid_utf8(text), text);
    }
}

TEST(Utf8, EveryInvalidSequenceBecomesTheReplacementCharacter) {
    const std::string r = "\xEF\xBF\xBD";
    EXPECT_EQ(valid_utf8("a\xFF" "b"), "a" + r + "b");
    EXPECT_EQ(valid_utf8("\xC0\xAF"), r + r);                  // overlong '/'
    EXPECT_EQ(valid_utf8("\xED\xA0\x80"), r + r + r);          // a UTF-16 surrogate
    EXPECT_EQ(valid_utf8("\xF4\x90\x80\x80"), r + r + r + r);  // above U+10FFFF
    EXPECT_EQ(valid_utf8("\xE2\x82"), r + r);                  // truncated at the end
    EXPECT_EQ(valid_utf8("\x80" "x"), r + "x");                // a stray continuation byte
    EXPECT_TRUE(is_valid_utf8(valid_utf8("\xFE\xFF\xC3")));
}

TEST(Utf8, DumpNeverThrowsOnInvalidBytes) {
    nlohmann::json j = {{"message", std::string("error at \xFF\xFE")}};
    EXPECT_THROW((void)j.dump(), nlohmann::json::type_error);  // what aborted kernelpro before
    std::string dumped = kp::dump_json(j);
    EXPECT_TRUE(is_valid_utf8(dumped));
    EXPECT_EQ(nlohmann::json::parse(dumped)["message"], "error at \xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(Utf8, PathTextOfANonUtf8FileName) {
    EXPECT_EQ(kp::path_text(std::filesystem::path("/tmp/t\xFF.cu")), "/tmp/t\xEF\xBF\xBD.cu");
}

TEST(Utf8, OneLineEscapesControlCharacters) {
    EXPECT_EQ(kp::one_line("a\nb\tc\x01\x7F\xFF"), "a\\nb\\tc\\x01\\x7f\xEF\xBF\xBD");
    EXPECT_EQ(kp::one_line("plain"), "plain");
}
