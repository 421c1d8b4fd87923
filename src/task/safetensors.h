// Reading and writing the safetensors format: an 8-byte little-endian header length, a JSON header
// {name: {dtype, shape, data_offsets}}, then the raw tensor bytes. Used for precomputed reference
// input/output sets (references that live elsewhere, e.g. PyTorch).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "common/result.h"
#include "task/dtype.h"

namespace kp {

struct HostTensor {
    DType dtype = DType::F32;
    std::vector<int64_t> shape;
    std::vector<uint8_t> bytes;  // contiguous row-major
};

using TensorSet = std::map<std::string, HostTensor>;

Result<TensorSet> read_safetensors(const std::filesystem::path& path);
Status write_safetensors(const std::filesystem::path& path, const TensorSet& tensors);

}  // namespace kp
