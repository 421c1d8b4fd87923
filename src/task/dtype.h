// Element types of task tensors; the same set and order as kp_dtype in include/kernelpro/abi.h.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace kp {

enum class DType { F32 = 0, F16, BF16, F64, I32, I64, U8, Bool };

std::optional<DType> parse_dtype(std::string_view name);  // "f32", "bf16", ...
const char* dtype_name(DType dtype);
size_t dtype_size(DType dtype);
bool dtype_is_floating(DType dtype);
// Default tolerances (issue 2 / KernelBench at HEAD): f32 and f64 1e-4, f16 and bf16 1e-2, exact
// for integers and bool.
double default_tolerance(DType dtype);

}  // namespace kp
