#include "gpu/ceilings.h"


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

DeviceCeilings h200_datasheet_ceilings(const std::string& why) {
    DeviceCeilings c;
    c.source = "datasheet";
    c.label = "H200 SXM datasheet values, not measured (" + why + ")";
    c.device = h200_reference_device();
    auto add = [&](const char* name, double value, const char* unit, const char* method) {
        Ceiling ceiling;
        ceiling.name = name;
        ceiling.value = value;
        ceiling.unit = unit;
        ceiling.method = method;
        c.ceilings.push_back(ceiling);
    };
    add("dram_copy", 4.8e12, "byte/s", "datasheet HBM3e peak (a measured copy reaches about 4.3e12)");
    add("l2_read", 10.3e12, "byte/s", "188 x 32 B per L2 cycle x 1.71 GHz (ncu peak counters)");
    add("fp32_fma", 66.9e12, "flop/s", "16896 FFMA per clock x 2 x 1.98 GHz");
    add("fp64_fma", 33.5e12, "flop/s", "8448 DFMA per clock x 2 x 1.98 GHz");
    add("tensor_bf16", 989e12, "flop/s", "dense wgmma peak at 1.83 GHz (cuBLAS 8192^3 measures about 790e12)");
    add("tensor_fp16", 989e12, "flop/s", "dense wgmma peak at 1.83 GHz");
    return c;
}

}  // namespace kp::gpu
