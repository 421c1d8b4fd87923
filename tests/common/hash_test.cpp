#include <gtest/gtest.h>

#include "common/hash.h"

TEST(Hash, KnownSha256) {
    EXPECT_EQ(kp::sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Hash, PartsAreLengthPrefixed) {
    kp::Sha256 a, b;
    EXPECT_NE(a.add("ab").add("c").hex(), b.add("a").add("bc").hex());
}
