#include "gpu/ceilings.h"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace kp::gpu {

const Ceiling* DeviceCeilings::find(const std::string& name) const {
    for (const auto& c : ceilings)
        if (c.name == name) return &c;
    return nullptr;
}

std::optional<double> DeviceCeilings::value(const std::string& name) const {
    const Ceiling* c = find(name);
    if (!c || !c->skipped.empty() || c->value <= 0) return std::nullopt;
    return c->value;
}

namespace {
template <typename T>
void read_optional(const nlohmann::json& j, const char* key, T& out) {
    if (auto it = j.find(key); it != j.end() && !it->is_null()) it->get_to(out);
}
template <typename T>
void read_optional(const nlohmann::json& j, const char* key, std::optional<T>& out) {
    if (auto it = j.find(key); it != j.end() && !it->is_null()) out = it->get<T>();
}
}  // namespace

void to_json(nlohmann::json& j, const Ceiling& c) {
    j = {{"name", c.name}, {"value", c.value}, {"unit", c.unit}, {"method", c.method},
         {"median_seconds", c.median_seconds}, {"min_seconds", c.min_seconds}, {"max_seconds", c.max_seconds},
         {"repetitions", c.repetitions}, {"work_per_repetition", c.work_per_repetition},
         {"clock_event_reasons", c.clock_event_reasons}, {"skipped", c.skipped}};
    j["sm_clock_mhz_mean"] = c.sm_clock_mhz_mean ? nlohmann::json(*c.sm_clock_mhz_mean) : nlohmann::json();
    j["sm_clock_mhz_min"] = c.sm_clock_mhz_min ? nlohmann::json(*c.sm_clock_mhz_min) : nlohmann::json();
    j["power_watts_mean"] = c.power_watts_mean ? nlohmann::json(*c.power_watts_mean) : nlohmann::json();
}

void from_json(const nlohmann::json& j, Ceiling& c) {
    c = Ceiling{};
    j.at("name").get_to(c.name);
    read_optional(j, "value", c.value);
    read_optional(j, "unit", c.unit);
    read_optional(j, "method", c.method);
    read_optional(j, "median_seconds", c.median_seconds);
    read_optional(j, "min_seconds", c.min_seconds);
    read_optional(j, "max_seconds", c.max_seconds);
    read_optional(j, "repetitions", c.repetitions);
    read_optional(j, "work_per_repetition", c.work_per_repetition);
    read_optional(j, "sm_clock_mhz_mean", c.sm_clock_mhz_mean);
    read_optional(j, "sm_clock_mhz_min", c.sm_clock_mhz_min);
    read_optional(j, "power_watts_mean", c.power_watts_mean);
    read_optional(j, "clock_event_reasons", c.clock_event_reasons);
    read_optional(j, "skipped", c.skipped);
}

void to_json(nlohmann::json& j, const DeviceCeilings& c) {
    j = {{"schema", c.schema}, {"source", c.source}, {"label", c.label}, {"device", c.device},
         {"driver_version", c.driver_version}, {"cuda_runtime_version", c.cuda_runtime_version},
         {"measured_at", c.measured_at}, {"ceilings", c.ceilings}};
}

void from_json(const nlohmann::json& j, DeviceCeilings& c) {
    c = DeviceCeilings{};
    read_optional(j, "schema", c.schema);
    read_optional(j, "source", c.source);
    read_optional(j, "label", c.label);
    read_optional(j, "device", c.device);
    read_optional(j, "driver_version", c.driver_version);
    read_optional(j, "cuda_runtime_version", c.cuda_runtime_version);
    read_optional(j, "measured_at", c.measured_at);
    read_optional(j, "ceilings", c.ceilings);
}

Result<DeviceCeilings> parse_ceilings_json(const std::string& text) {
    try {
        auto j = nlohmann::json::parse(text);
        DeviceCeilings c = j.get<DeviceCeilings>();
        if (c.schema != "kernelpro.ceilings.v1") return make_error("unknown ceilings schema '" + c.schema + "'");
        return c;
    } catch (const nlohmann::json::exception& e) {
        return make_error(std::string("ceilings JSON is malformed: ") + e.what());
    }
}

const char* ceiling_unit(const std::string& name) {
    return name == ceiling_name::dram || name == ceiling_name::l2 || name == ceiling_name::l1 ? "byte/s" : "flop/s";
}

bool scales_with_sm_clock(const std::string& name) { return name != ceiling_name::dram && name != ceiling_name::l2; }

bool DeviceCeilings::known() const { return value(ceiling_name::dram) || value(ceiling_name::fp32); }

double DeviceCeilings::reference_clock_hz() const {
    const Ceiling* fp32 = find(ceiling_name::fp32);
    return fp32 && fp32->sm_clock_mhz_mean && *fp32->sm_clock_mhz_mean > 0 ? *fp32->sm_clock_mhz_mean * 1e6 : 0.0;
}

double DeviceCeilings::at_reference_clock(const std::string& name) const {
    auto rate = value(name);
    if (!rate) return 0.0;
    const Ceiling* c = find(name);
    const double reference = reference_clock_hz();
    if (!scales_with_sm_clock(name) || reference <= 0 || !c->sm_clock_mhz_mean || *c->sm_clock_mhz_mean <= 0) return *rate;
    return *rate * reference / (*c->sm_clock_mhz_mean * 1e6);
}

FlopPrecision flop_precision_of_task(const std::string& precision) {
    if (precision == "f64") return FlopPrecision::fp64;
    if (precision == "f16") return FlopPrecision::fp16_tensor;
    if (precision == "bf16") return FlopPrecision::bf16_tensor;
    if (precision == "tf32") return FlopPrecision::tf32_tensor;
    return FlopPrecision::fp32;
}

double flops_ceiling(const DeviceCeilings& c, FlopPrecision precision) {
    switch (precision) {
        case FlopPrecision::fp32: return c.at_reference_clock(ceiling_name::fp32);
        case FlopPrecision::fp64:
            return std::max(c.at_reference_clock(ceiling_name::fp64), c.at_reference_clock(ceiling_name::tensor_fp64));
        case FlopPrecision::fp16: return c.at_reference_clock(ceiling_name::fp16);
        case FlopPrecision::bf16_tensor: return c.at_reference_clock(ceiling_name::tensor_bf16);
        case FlopPrecision::fp16_tensor: return c.at_reference_clock(ceiling_name::tensor_fp16);
        case FlopPrecision::tf32_tensor: return c.at_reference_clock(ceiling_name::tensor_tf32);
        case FlopPrecision::fp8_tensor: return c.at_reference_clock(ceiling_name::tensor_fp8);
    }
    return 0.0;
}

}  // namespace kp::gpu
