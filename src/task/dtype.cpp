#include "task/dtype.h"

#include <array>

namespace kp {

namespace {
struct DTypeInfo {
    DType dtype;
    const char* name;
    size_t size;
    bool floating;
    double tolerance;
};
constexpr std::array<DTypeInfo, 8> kInfo{{
    {DType::F32, "f32", 4, true, 1e-4},
    {DType::F16, "f16", 2, true, 1e-2},
    {DType::BF16, "bf16", 2, true, 1e-2},
    {DType::F64, "f64", 8, true, 1e-4},
    {DType::I32, "i32", 4, false, 0.0},
    {DType::I64, "i64", 8, false, 0.0},
    {DType::U8, "u8", 1, false, 0.0},
    {DType::Bool, "bool", 1, false, 0.0},
}};
const DTypeInfo& info(DType d) { return kInfo[static_cast<size_t>(d)]; }
}  // namespace

std::optional<DType> parse_dtype(std::string_view name) {
    for (const auto& i : kInfo)
        if (name == i.name) return i.dtype;
    return std::nullopt;
}
const char* dtype_name(DType dtype) { return info(dtype).name; }
size_t dtype_size(DType dtype) { return info(dtype).size; }
bool dtype_is_floating(DType dtype) { return info(dtype).floating; }
double default_tolerance(DType dtype) { return info(dtype).tolerance; }

}  // namespace kp
