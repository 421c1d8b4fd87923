#include <gtest/gtest.h>

#include <fstream>

#include "common/files.h"
#include "task/safetensors.h"

using namespace kp;

TEST(Safetensors, RoundTrip) {
    auto dir = make_temp_directory("kp-st").value();
    TensorSet set;
    HostTensor a{DType::F32, {2, 3}, std::vector<uint8_t>(24)};
    for (size_t i = 0; i < 24; ++i) a.bytes[i] = static_cast<uint8_t>(i);
    HostTensor b{DType::I64, {1}, std::vector<uint8_t>(8, 7)};
    set["a"] = a;
    set["b"] = b;
    ASSERT_TRUE(write_safetensors(dir / "s.safetensors", set).ok());
    auto back = read_safetensors(dir / "s.safetensors");
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->at("a").shape, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(back->at("a").bytes, a.bytes);
    EXPECT_EQ(back->at("b").dtype, DType::I64);
}

TEST(Safetensors, RejectsInconsistentOffsets) {
    auto dir = make_temp_directory("kp-st").value();
    std::string header = R"({"x":{"dtype":"F32","shape":[4],"data_offsets":[0,8]}})";
    uint64_t n = header.size();
    std::ofstream out(dir / "bad.safetensors", std::ios::binary);
    out.write(reinterpret_cast<const char*>(&n), 8);
    out << header << std::string(8, '\0');
    out.close();
    auto r = read_safetensors(dir / "bad.safetensors");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("do not match"), std::string::npos);
}
