// A tiny source tree, written fresh for each test: a few CuTe-like headers, an example, a binary
// file, a symbolic link to a file outside the tree, a hidden folder.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/files.h"

namespace kp::codesearch::testing {

inline void write(const std::filesystem::path& file, const std::string& text) {
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
}

struct FixtureTree {
    ScratchDirectory scratch = ScratchDirectory::create("kp-codesearch-test").value();
    std::filesystem::path root = scratch.path() / "cutlass";
    std::filesystem::path cache = scratch.path() / "cache";
    std::filesystem::path outside = scratch.path() / "secret.txt";

    FixtureTree() {
        write(root / "include/cutlass/version.h",
              "#pragma once\n#define CUTLASS_MAJOR 4\n#define CUTLASS_MINOR 2\n#define CUTLASS_PATCH 0\n");
        write(root / "include/cute/atom/copy_traits_sm90_tma.hpp",
              "namespace cute {\n"
              "struct SM90_TMA_LOAD {};\n"
              "// make_tma_copy builds a TMA copy atom for one cluster\n"
              "template <class CopyOp, class GEngine>\n"
              "auto make_tma_copy(CopyOp const& copy_op, GEngine const& gtensor) { return copy_op; }\n"
              "}  // namespace cute\n");
        write(root / "include/cute/atom/mma_traits_sm90_gmma.hpp",
              "namespace cute {\n"
              "// warpgroup MMA: one GMMA per warpgroup of 128 threads\n"
              "struct SM90_64x128x16_F32BF16BF16_SS {};\n"
              "}  // namespace cute\n");
        write(root / "include/cute/tensor.hpp", "#pragma once\n#include <cute/layout.hpp>\n// make_tensor and local_tile\n");
        std::string long_file;
        for (int i = 1; i <= 300; ++i) long_file += "int line_" + std::to_string(i) + " = " + std::to_string(i) + ";\n";
        write(root / "include/cute/layout.hpp", long_file);
        write(root / "examples/48_hopper_warp_specialized_gemm/gemm.cu",
              "#include <cute/tensor.hpp>\n"
              "using Mainloop = KernelTmaWarpSpecializedCooperative;\n"
              "// the warp specialized kernel uses make_tma_copy through the collective builder\n"
              "int main() { return 0; }\n");
        write(root / "examples/binary.bin", std::string("make_tma_copy\0\x01\x02", 16));
        write(root / ".git/config", "make_tma_copy in a hidden folder\n");
        write(outside, "TOP_SECRET_MARKER make_tma_copy\n");
        std::filesystem::create_symlink(outside, root / "include/cute/leak.hpp");
    }
};

}  // namespace kp::codesearch::testing
