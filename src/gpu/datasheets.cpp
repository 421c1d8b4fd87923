#include "gpu/datasheets.h"

#include <algorithm>

namespace kp::gpu {

namespace {

struct Rate {
    const char* name;  // a ceiling name (ceilings.h)
    double value;      // byte/s or flop/s (op/s for int8)
    double clock_mhz;  // the SM clock the figure is stated at; 0 when the source does not say
    const char* method;
};

struct Datasheet {
    std::vector<std::string> cuda_names;  // as cuDeviceGetName reports the GPU
    const char* source;                   // the public document the figures come from
    std::vector<Rate> rates;
};

// Dense (no 2:4 sparsity) figures throughout: the sparse ones in the datasheets are twice these.
// Hopper's per-clock peaks, from the SM counts in NVIDIA's H100 architecture whitepaper (132 SMs of
// 128 FP32 lanes): the datasheets' FP32/FP64 figures hold at 1.98 GHz, the dense tensor figures
// at 1.83 GHz (540672 BF16 FLOP per clock x 1.83 GHz = 989 TFLOP/s).
std::vector<Rate> hopper_sxm_compute() {
    return {
        {ceiling_name::fp32, 16896.0 * 2 * 1.98e9, 1980, "16896 FFMA per clock x 2 x 1.98 GHz (67 TFLOP/s)"},
        {ceiling_name::fp64, 8448.0 * 2 * 1.98e9, 1980, "8448 DFMA per clock x 2 x 1.98 GHz (34 TFLOP/s)"},
        {ceiling_name::fp16, 16896.0 * 4 * 1.98e9, 1980, "16896 HFMA2 per clock x 4 x 1.98 GHz (134 TFLOP/s, not tensor)"},
        {ceiling_name::l1, 128.0 * 132 * 1.98e9, 1980, "128 B per clock per SM x 132 SMs x 1.98 GHz"},
        {ceiling_name::tensor_bf16, 540672.0 * 1.83e9, 1830, "dense wgmma, 540672 FLOP per clock x 1.83 GHz (989 TFLOP/s)"},
        {ceiling_name::tensor_fp16, 540672.0 * 1.83e9, 1830, "dense wgmma, 540672 FLOP per clock x 1.83 GHz (989 TFLOP/s)"},
        {ceiling_name::tensor_tf32, 270336.0 * 1.83e9, 1830, "dense, 270336 FLOP per clock x 1.83 GHz (495 TFLOP/s)"},
        {ceiling_name::tensor_fp8, 1081344.0 * 1.83e9, 1830, "dense, 1081344 FLOP per clock x 1.83 GHz (1979 TFLOP/s)"},
        {ceiling_name::tensor_int8, 1081344.0 * 1.83e9, 1830, "dense, 1081344 op per clock x 1.83 GHz (1979 TOP/s)"},
        {ceiling_name::tensor_fp64, 33792.0 * 1.98e9, 1980, "33792 FLOP per clock x 1.98 GHz (67 TFLOP/s)"},
    };
}

std::vector<Rate> a100_sxm4(Rate dram) {
    return {dram,
            {ceiling_name::fp32, 19.5e12, 1410, "datasheet FP32"},
            {ceiling_name::fp64, 9.7e12, 1410, "datasheet FP64"},
            {ceiling_name::fp16, 78e12, 1410, "whitepaper FP16, not tensor"},
            {ceiling_name::tensor_bf16, 312e12, 1410, "datasheet BF16 tensor, dense"},
            {ceiling_name::tensor_fp16, 312e12, 1410, "datasheet FP16 tensor, dense"},
            {ceiling_name::tensor_tf32, 156e12, 1410, "datasheet TF32 tensor, dense"},
            {ceiling_name::tensor_int8, 624e12, 1410, "datasheet INT8 tensor, dense"},
            {ceiling_name::tensor_fp64, 19.5e12, 1410, "datasheet FP64 tensor"}};
}

std::vector<Rate> with(std::vector<Rate> rates, std::initializer_list<Rate> more) {
    rates.insert(rates.end(), more);
    return rates;
}

const std::vector<Datasheet>& datasheets() {
    static const std::vector<Datasheet> tables = {
        // NVIDIA H200 Tensor Core GPU datasheet (SXM): 4.8 TB/s HBM3e; compute as the H100 SXM.
        {{"NVIDIA H200"},
         "NVIDIA H200 Tensor Core GPU datasheet (SXM)",
         with(hopper_sxm_compute(),
              {{ceiling_name::dram, 4.8e12, 0, "datasheet HBM3e peak (a measured copy reaches about 4.3e12)"},
               {ceiling_name::l2, 188.0 * 32 * 1.71e9, 0, "188 x 32 B per L2 cycle x 1.71 GHz (ncu's peak counters on an H200)"}})},
        // NVIDIA H100 Tensor Core GPU datasheet (SXM column): 3.35 TB/s HBM3.
        {{"NVIDIA H100 80GB HBM3", "NVIDIA H100 SXM5 80GB"},
         "NVIDIA H100 Tensor Core GPU datasheet (SXM)",
         with(hopper_sxm_compute(), {{ceiling_name::dram, 3.35e12, 0, "datasheet HBM3 peak"}})},
        // NVIDIA A100 Tensor Core GPU datasheet (SXM4), 108 SMs at the 1.41 GHz boost clock of
        // NVIDIA's A100 architecture whitepaper; the 80GB and 40GB parts differ in memory only.
        {{"NVIDIA A100-SXM4-80GB"}, "NVIDIA A100 Tensor Core GPU datasheet (80GB SXM)",
         a100_sxm4({ceiling_name::dram, 2.039e12, 0, "datasheet HBM2e peak (80GB SXM)"})},
        {{"NVIDIA A100-SXM4-40GB"}, "NVIDIA A100 Tensor Core GPU datasheet (40GB SXM)",
         a100_sxm4({ceiling_name::dram, 1.555e12, 0, "datasheet HBM2 peak (40GB SXM)"})},
        // NVIDIA L40S datasheet: 864 GB/s GDDR6, 142 SMs at a 2.52 GHz boost clock. FP64 is not on
        // the datasheet, so it has no ceiling here.
        {{"NVIDIA L40S"},
         "NVIDIA L40S datasheet",
         {{ceiling_name::dram, 864e9, 0, "datasheet GDDR6 peak"},
          {ceiling_name::fp32, 91.6e12, 2520, "datasheet FP32"},
          {ceiling_name::tensor_bf16, 362.05e12, 2520, "datasheet BF16 tensor, dense"},
          {ceiling_name::tensor_fp16, 362.05e12, 2520, "datasheet FP16 tensor, dense"},
          {ceiling_name::tensor_tf32, 183e12, 2520, "datasheet TF32 tensor, dense"},
          {ceiling_name::tensor_fp8, 733e12, 2520, "datasheet FP8 tensor, dense"},
          {ceiling_name::tensor_int8, 733e12, 2520, "datasheet INT8 tensor, dense"}}},
        // NVIDIA HGX B200 specifications, per GPU (1000 W): 8 TB/s HBM3e. The clock the figures
        // hold at is not published, so they are not rescaled.
        {{"NVIDIA B200"},
         "NVIDIA HGX B200 specifications (per GPU)",
         {{ceiling_name::dram, 8e12, 0, "datasheet HBM3e peak"},
          {ceiling_name::fp32, 80e12, 0, "datasheet FP32"},
          {ceiling_name::fp64, 40e12, 0, "datasheet FP64"},
          {ceiling_name::tensor_bf16, 2.25e15, 0, "datasheet BF16 tensor, dense"},
          {ceiling_name::tensor_fp16, 2.25e15, 0, "datasheet FP16 tensor, dense"},
          {ceiling_name::tensor_tf32, 1.1e15, 0, "datasheet TF32 tensor, dense"},
          {ceiling_name::tensor_fp8, 4.5e15, 0, "datasheet FP8 tensor, dense"},
          {ceiling_name::tensor_int8, 4.5e15, 0, "datasheet INT8 tensor, dense"},
          {ceiling_name::tensor_fp64, 40e12, 0, "datasheet FP64 tensor"}}},
    };
    return tables;
}

const Datasheet* table_for(const std::string& cuda_name) {
    for (const auto& table : datasheets())
        if (std::find(table.cuda_names.begin(), table.cuda_names.end(), cuda_name) != table.cuda_names.end()) return &table;
    return nullptr;
}

DeviceCeilings from_table(const Datasheet& table, const DeviceInfo& device) {
    DeviceCeilings c;
    c.source = "datasheet";
    c.label = std::string(table.source) + ", not measured";
    c.device = device;
    for (const Rate& rate : table.rates) {
        Ceiling ceiling;
        ceiling.name = rate.name;
        ceiling.value = rate.value;
        ceiling.unit = ceiling_unit(rate.name);
        ceiling.method = std::string(table.source) + ": " + rate.method;
        if (rate.clock_mhz > 0) ceiling.sm_clock_mhz_mean = rate.clock_mhz;
        c.ceilings.push_back(std::move(ceiling));
    }
    return c;
}

}  // namespace

std::optional<DeviceCeilings> datasheet_ceilings(const DeviceInfo& device) {
    const Datasheet* table = table_for(device.name);
    if (!table) return std::nullopt;
    return from_table(*table, device);
}

std::vector<std::string> datasheet_gpu_names() {
    std::vector<std::string> names;
    for (const auto& table : datasheets()) names.insert(names.end(), table.cuda_names.begin(), table.cuda_names.end());
    return names;
}

DeviceCeilings no_gpu_ceilings(const std::string& why) {
    DeviceCeilings c = from_table(*table_for("NVIDIA H200"), h200_reference_device());
    c.label = "H200 SXM datasheet values, not measured (" + why + ")";
    return c;
}

}  // namespace kp::gpu
