#include "task/tensor_spec_parser.h"

#include <algorithm>
#include <regex>

#include "common/utf8.h"

namespace kp {

using task_fields::Problems;

namespace {

// Elements and storage bytes, or nullopt when they do not fit 64 bits.
std::optional<int64_t> storage_bytes_checked(const std::vector<int64_t>& shape, const std::vector<int64_t>& stride,
                                             DType dtype) {
    int64_t last = 0;
    for (size_t i = 0; i < shape.size(); ++i) {
        int64_t offset = 0;
        if (__builtin_mul_overflow(shape[i] - 1, stride[i], &offset) || __builtin_add_overflow(last, offset, &last))
            return std::nullopt;
    }
    int64_t bytes = 0;
    if (__builtin_add_overflow(last, int64_t{1}, &last) ||
        __builtin_mul_overflow(last, static_cast<int64_t>(dtype_size(dtype)), &bytes))
        return std::nullopt;
    return bytes;
}

// True when two different indices of the layout reach the same element (a stride of 0, or strides
// that interleave): an output laid out so would be written twice per element.
bool layout_overlaps(const std::vector<int64_t>& shape, const std::vector<int64_t>& stride) {
    std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, extent), extents > 1 only
    for (size_t i = 0; i < shape.size(); ++i)
        if (shape[i] > 1) dims.emplace_back(stride[i], shape[i]);
    std::sort(dims.begin(), dims.end());
    int64_t reached = 1;  // elements spanned by the dimensions with smaller strides
    for (const auto& [s, extent] : dims) {
        if (s < reached) return true;
        reached = s * extent;  // fits: the storage size was checked first
    }
    return false;
}

Distribution parse_distribution(const toml::node* node, DType dtype, const std::filesystem::path& task_dir,
                                const std::string& field, Problems& problems) {
    Distribution d;
    if (!dtype_is_floating(dtype)) d = {DistributionKind::Integer, 0, dtype == DType::Bool ? 1.0 : 100.0, {}};
    if (dtype == DType::U8) d.b = 255;
    if (!node) return d;
    const auto* table = node->as_table();
    if (!table) {
        problems.add(node->source(), field, "must be a table such as { kind = \"normal\", mean = 0, std = 1 }");
        return d;
    }
    auto kind = task_fields::string_value(*table, "kind", field + ".kind", problems);
    if (!kind) {
        if (!table->contains("kind")) problems.add(node->source(), field + ".kind", "missing (uniform, normal, integer or fixed)");
        return d;
    }
    auto number = [&](const char* key, double fallback) {
        return task_fields::finite_number(*table, key, field + "." + key, problems).value_or(fallback);
    };
    if (*kind == "uniform") {
        task_fields::check_known_keys(*table, {"kind", "low", "high"}, field + ".", problems);
        d = {DistributionKind::Uniform, number("low", -1.0), number("high", 1.0), {}};
        if (!(d.a < d.b)) problems.add(node->source(), field, "uniform needs low < high");
    } else if (*kind == "normal") {
        task_fields::check_known_keys(*table, {"kind", "mean", "std"}, field + ".", problems);
        d = {DistributionKind::Normal, number("mean", 0.0), number("std", 1.0), {}};
        if (!(d.b > 0)) problems.add(node->source(), field, "normal needs std > 0");
    } else if (*kind == "integer") {
        task_fields::check_known_keys(*table, {"kind", "low", "high"}, field + ".", problems);
        d = {DistributionKind::Integer, number("low", 0.0), number("high", 100.0), {}};
        if (!(d.a <= d.b)) problems.add(node->source(), field, "integer needs low <= high");
    } else if (*kind == "fixed") {
        task_fields::check_known_keys(*table, {"kind", "file"}, field + ".", problems);
        d.kind = DistributionKind::Fixed;
        auto file = task_fields::string_value(*table, "file", field + ".file", problems);
        std::error_code error;
        if (!file) {
            if (!table->contains("file")) problems.add(node->source(), field + ".file", "missing (a safetensors file holding the values)");
        } else if (!std::filesystem::is_regular_file(task_dir / *file, error)) {
            problems.add(node->source(), field + ".file", "no such file: " + valid_utf8(*file));
        } else {
            d.file = std::filesystem::absolute(task_dir / *file, error);
        }
    } else {
        problems.add(node->source(), field + ".kind", "unknown distribution '" + *kind + "' (uniform, normal, integer, fixed)");
    }
    if (!dtype_is_floating(dtype) && d.kind == DistributionKind::Normal)
        problems.add(node->source(), field, std::string("normal is not valid for ") + dtype_name(dtype));
    return d;
}

// A list of 0 to 8 integers of at least `minimum` ([] is a scalar's shape); `noun` and `rule`
// word the messages.
std::optional<std::vector<int64_t>> integer_list(const toml::table& table, const char* key, const std::string& field,
                                                 int64_t minimum, const char* noun, const char* rule,
                                                 Problems& problems) {
    const toml::node* node = table.get(key);
    if (!node) return std::nullopt;
    const auto* array = node->as_array();
    if (!array || array->size() > 8) {
        problems.add(node->source(), field,
                     array ? "must have 0 to 8 dimensions ([] is a scalar)"
                           : "must be an array of 0 to 8 " + std::string(rule) + " integers, not " + task_fields::type_name(*node));
        return std::nullopt;
    }
    std::vector<int64_t> values;
    for (const auto& element : *array) {
        const auto* integer = element.as_integer();
        if (!integer || integer->get() < minimum) {
            problems.add(element.source(), field,
                         std::string(noun) + " must be " + rule + " integers" +
                             (integer ? "" : ", not " + task_fields::type_name(element)));
            return std::nullopt;
        }
        values.push_back(integer->get());
    }
    return values;
}

bool parse_layout(const toml::table& table, const std::string& field, bool is_output, TensorSpec& t, Problems& problems) {
    auto shape = integer_list(table, "shape", field + ".shape", 1, "dimensions", "positive", problems);
    if (!shape) {
        if (!table.contains("shape")) problems.add(table.source(), field + ".shape", "missing");
        return false;
    }
    t.shape = *shape;
    if (table.contains("stride")) {
        auto stride = integer_list(table, "stride", field + ".stride", 0, "strides", "non-negative", problems);
        if (!stride) return false;
        if (stride->size() != t.shape.size()) {
            problems.add(table.get("stride")->source(), field + ".stride", "must have as many entries as shape");
            return false;
        }
        t.stride = *stride;
    } else {
        t.stride.assign(t.shape.size(), 1);
        for (size_t i = t.shape.empty() ? 0 : t.shape.size() - 1; i-- > 0;)
            if (__builtin_mul_overflow(t.stride[i + 1], t.shape[i + 1], &t.stride[i])) t.stride[i] = INT64_MAX;
    }
    const auto& region = task_fields::where(table.get("shape"), table);
    auto bytes = storage_bytes_checked(t.shape, t.stride, t.dtype);
    if (!bytes || *bytes > kMaxTaskTensorBytes) {
        problems.add(region, field + ".shape",
                     (bytes ? "needs " + std::to_string(*bytes >> 30) + " GiB" : std::string("its size does not fit 64 bits")) +
                         "; a task's tensors may need at most " + std::to_string(kMaxTaskTensorBytes >> 30) +
                         " GiB (the evaluation keeps several copies on the device)");
        return false;
    }
    if (is_output && layout_overlaps(t.shape, t.stride)) {
        problems.add(task_fields::where(table.get("stride"), table), field + ".stride",
                     "two elements of an output share memory (a stride of 0, or strides that overlap)");
        return false;
    }
    return true;
}

}  // namespace

std::optional<TensorSpec> parse_tensor(const toml::table& table, const std::filesystem::path& task_dir, const std::string& field,
                                       bool is_output, Problems& problems) {
    std::vector<std::string> known{"name", "dtype", "shape", "stride", "distribution"};
    if (is_output) known.insert(known.end(), {"atol", "rtol"});
    task_fields::check_known_keys(table, known, field + ".", problems);
    TensorSpec t;
    bool ok = true;
    // Dots are allowed: a module's parameters keep their state_dict names ("conv.weight").
    static const std::regex identifier("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z0-9_]+)*");
    constexpr size_t kMaxTensorName = 128;
    auto name = task_fields::string_value(table, "name", field + ".name", problems);
    if (!name || name->size() > kMaxTensorName || !std::regex_match(*name, identifier)) {
        if (name || !table.contains("name"))
            problems.add(task_fields::where(table.get("name"), table), field + ".name",
                         name ? "must be an identifier of at most 128 characters (dots allowed: conv.weight)" : "missing");
        ok = false;
    } else {
        t.name = *name;
    }
    auto dtype_text = task_fields::string_value(table, "dtype", field + ".dtype", problems);
    auto dtype = dtype_text ? parse_dtype(*dtype_text) : std::nullopt;
    if (!dtype) {
        if (dtype_text || !table.contains("dtype"))
            problems.add(task_fields::where(table.get("dtype"), table), field + ".dtype",
                         dtype_text ? "unknown dtype '" + *dtype_text + "' (f32 f16 bf16 f64 i32 i64 u8 bool)" : "missing");
        ok = false;  // the layout is still checked, as f32
    } else {
        t.dtype = *dtype;
    }
    ok = parse_layout(table, field, is_output, t, problems) && ok;
    if (is_output) {
        if (const auto* d = table.get("distribution")) problems.add(d->source(), field + ".distribution", "outputs take no distribution");
        for (const char* key : {"atol", "rtol"}) {
            auto v = task_fields::finite_number(table, key, field + "." + key, problems);
            if (v && *v < 0) problems.add(table.get(key)->source(), field + "." + key, "must be a non-negative number");
            else if (v) (std::string(key) == "atol" ? t.atol : t.rtol) = *v;
        }
    } else if (ok) {
        t.distribution = parse_distribution(table.get("distribution"), t.dtype, task_dir, field + ".distribution", problems);
    }
    if (!ok) return std::nullopt;
    return t;
}

}  // namespace kp
