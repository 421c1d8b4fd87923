#include "gpu/cuda_driver.h"

// Only for the enum values and types; libcuda is never linked (see CMakeLists.txt).
#include <cuda.h>

namespace kp::gpu {

struct CudaDriver::EntryPoints {
    CUresult (*init)(unsigned int) = nullptr;
    CUresult (*driver_get_version)(int*) = nullptr;
    CUresult (*device_get_count)(int*) = nullptr;
    CUresult (*device_get)(CUdevice*, int) = nullptr;
    CUresult (*device_get_name)(char*, int, CUdevice) = nullptr;
    CUresult (*device_get_attribute)(int*, CUdevice_attribute, CUdevice) = nullptr;
    CUresult (*device_total_mem)(size_t*, CUdevice) = nullptr;
    CUresult (*device_get_pci_bus_id)(char*, int, CUdevice) = nullptr;  // optional
    CUresult (*get_error_name)(CUresult, const char**) = nullptr;      // optional
    CUresult (*device_get_uuid)(CUuuid*, CUdevice) = nullptr;          // optional
};

std::string CudaDriver::describe(int result) const {
    const char* name = nullptr;
    if (api_ && api_->get_error_name) api_->get_error_name(static_cast<CUresult>(result), &name);
    return std::string(name ? name : "CUDA error") + " (" + std::to_string(result) + ")";
}

Result<CudaDriver> CudaDriver::load() {
    auto library = DynamicLibrary::open({"libcuda.so.1"});
    if (!library) return make_error("no GPU: libcuda.so.1 not found (no NVIDIA driver installed)");

    auto api = std::make_shared<EntryPoints>();
    bool complete = library->bind(api->init, "cuInit") &&
                    library->bind(api->driver_get_version, "cuDriverGetVersion") &&
                    library->bind(api->device_get_count, "cuDeviceGetCount") &&
                    library->bind(api->device_get, "cuDeviceGet") &&
                    library->bind(api->device_get_name, "cuDeviceGetName") &&
                    library->bind(api->device_get_attribute, "cuDeviceGetAttribute") &&
                    library->bind(api->device_total_mem, "cuDeviceTotalMem_v2");
    if (!complete) return make_error("no GPU: " + library->loaded_name() + " lacks basic driver entry points");
    library->bind(api->device_get_pci_bus_id, "cuDeviceGetPCIBusId");
    library->bind(api->get_error_name, "cuGetErrorName");
    if (!library->bind(api->device_get_uuid, "cuDeviceGetUuid_v2")) library->bind(api->device_get_uuid, "cuDeviceGetUuid");

    CudaDriver driver;
    driver.library_ = std::move(*library);
    driver.api_ = api;
    CUresult status = api->init(0);
    if (status == CUDA_ERROR_STUB_LIBRARY)
        return make_error("no GPU: libcuda.so.1 is the CUDA toolkit's stub, not a real driver");
    if (status != CUDA_SUCCESS) return make_error("no GPU: cuInit failed with " + driver.describe(status));
    api->driver_get_version(&driver.driver_version_);
    return driver;
}

Result<int> CudaDriver::device_count() const {
    int count = 0;
    CUresult status = api_->device_get_count(&count);
    if (status != CUDA_SUCCESS) return make_error("cuDeviceGetCount failed with " + describe(status));
    return count;
}

Result<DeviceInfo> CudaDriver::device_info(int ordinal) const {
    CUdevice device = 0;
    if (CUresult s = api_->device_get(&device, ordinal); s != CUDA_SUCCESS)
        return make_error("cuDeviceGet(" + std::to_string(ordinal) + ") failed with " + describe(s));

    DeviceInfo info;
    info.ordinal = ordinal;
    info.driver_version = driver_version_;
    char name[256] = {};
    if (CUresult s = api_->device_get_name(name, sizeof(name), device); s != CUDA_SUCCESS)
        return make_error("cuDeviceGetName failed with " + describe(s));
    info.name = name;
    if (api_->device_get_pci_bus_id) {
        char bus[64] = {};
        if (api_->device_get_pci_bus_id(bus, sizeof(bus), device) == CUDA_SUCCESS) info.pci_bus_id = bus;
    }
    if (CUuuid uuid{}; api_->device_get_uuid && api_->device_get_uuid(&uuid, device) == CUDA_SUCCESS) {
        unsigned char bytes[16];
        for (int i = 0; i < 16; ++i) bytes[i] = static_cast<unsigned char>(uuid.bytes[i]);
        info.uuid = format_gpu_uuid(bytes);
    }
    size_t total = 0;
    if (api_->device_total_mem(&total, device) == CUDA_SUCCESS) info.total_memory_bytes = static_cast<std::int64_t>(total);

    // An attribute the driver does not know stays 0; none of them is worth failing over.
    auto attribute = [&](CUdevice_attribute which) {
        int value = 0;
        if (api_->device_get_attribute(&value, which, device) != CUDA_SUCCESS) return 0;
        return value;
    };
    info.compute_capability_major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    info.compute_capability_minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    info.sm_count = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    info.warp_size = attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    info.l2_cache_bytes = attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    info.max_persisting_l2_bytes = attribute(CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE);
    info.shared_memory_per_sm_bytes = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
    info.shared_memory_per_block_bytes = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    info.shared_memory_per_block_optin_bytes = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    info.reserved_shared_memory_per_block_bytes = attribute(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
    info.registers_per_sm = attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
    info.registers_per_block = attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
    info.max_threads_per_sm = attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
    info.max_blocks_per_sm = attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
    info.max_threads_per_block = attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    info.sm_clock_khz = attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    info.memory_clock_khz = attribute(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
    info.memory_bus_width_bits = attribute(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
    info.ecc_enabled = attribute(CU_DEVICE_ATTRIBUTE_ECC_ENABLED) != 0;
    if (info.warp_size > 0) info.max_warps_per_sm = info.max_threads_per_sm / info.warp_size;
    return info;
}

Result<std::vector<DeviceInfo>> CudaDriver::all_devices() const {
    auto count = device_count();
    if (!count) return count.error();
    std::vector<DeviceInfo> devices;
    for (int i = 0; i < *count; ++i) {
        auto info = device_info(i);
        if (!info) return info.error();
        devices.push_back(std::move(*info));
    }
    return devices;
}

}  // namespace kp::gpu
