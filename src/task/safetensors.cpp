#include "task/safetensors.h"

#include <fstream>

#include <nlohmann/json.hpp>

#include "common/files.h"

namespace kp {

namespace {

const char* safetensors_dtype(DType d) {
    switch (d) {
        case DType::F32: return "F32";
        case DType::F16: return "F16";
        case DType::BF16: return "BF16";
        case DType::F64: return "F64";
        case DType::I32: return "I32";
        case DType::I64: return "I64";
        case DType::U8: return "U8";
        case DType::Bool: return "BOOL";
    }
    return "?";
}

std::optional<DType> from_safetensors_dtype(const std::string& s) {
    for (auto d : {DType::F32, DType::F16, DType::BF16, DType::F64, DType::I32, DType::I64, DType::U8, DType::Bool})
        if (s == safetensors_dtype(d)) return d;
    return std::nullopt;
}

}  // namespace

Result<TensorSet> read_safetensors(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return make_error("cannot read " + path.string());
    uint64_t header_size = 0;
    in.read(reinterpret_cast<char*>(&header_size), 8);
    auto file_size = std::filesystem::file_size(path);
    if (!in || header_size > file_size - 8 || header_size > (100u << 20))
        return make_error(path.string() + ": not a safetensors file (bad header length)");
    std::string header(header_size, '\0');
    in.read(header.data(), static_cast<std::streamsize>(header_size));
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(header);
    } catch (const std::exception& e) {
        return make_error(path.string() + ": bad safetensors header: " + e.what());
    }
    const uint64_t data_start = 8 + header_size;
    const uint64_t data_size = file_size - data_start;
    TensorSet tensors;
    for (auto& [name, entry] : j.items()) {
        if (name == "__metadata__") continue;
        HostTensor t;
        auto dtype = from_safetensors_dtype(entry.value("dtype", ""));
        if (!dtype) return make_error(path.string() + ": tensor " + name + ": unsupported dtype " + entry.value("dtype", ""));
        t.dtype = *dtype;
        t.shape = entry.at("shape").get<std::vector<int64_t>>();
        auto offsets = entry.at("data_offsets").get<std::vector<uint64_t>>();
        int64_t count = 1;
        for (auto d : t.shape) count *= d;
        if (offsets.size() != 2 || offsets[1] < offsets[0] || offsets[1] > data_size ||
            offsets[1] - offsets[0] != static_cast<uint64_t>(count) * dtype_size(t.dtype))
            return make_error(path.string() + ": tensor " + name + ": data_offsets do not match dtype and shape");
        t.bytes.resize(offsets[1] - offsets[0]);
        in.seekg(static_cast<std::streamoff>(data_start + offsets[0]));
        in.read(reinterpret_cast<char*>(t.bytes.data()), static_cast<std::streamsize>(t.bytes.size()));
        if (!in) return make_error(path.string() + ": truncated data for " + name);
        tensors.emplace(name, std::move(t));
    }
    return tensors;
}

Status write_safetensors(const std::filesystem::path& path, const TensorSet& tensors) {
    nlohmann::json header = nlohmann::json::object();
    uint64_t offset = 0;
    for (const auto& [name, t] : tensors) {
        header[name] = {{"dtype", safetensors_dtype(t.dtype)}, {"shape", t.shape}, {"data_offsets", {offset, offset + t.bytes.size()}}};
        offset += t.bytes.size();
    }
    std::string text = header.dump();
    while ((8 + text.size()) % 8) text += ' ';  // keep the data 8-byte aligned, as the format recommends
    std::string contents;
    uint64_t n = text.size();
    contents.append(reinterpret_cast<const char*>(&n), 8);
    contents += text;
    for (const auto& [name, t] : tensors) contents.append(reinterpret_cast<const char*>(t.bytes.data()), t.bytes.size());
    return write_file_atomically(path, contents);
}

}  // namespace kp
