/* A stand-in for libnvidia-ml.so.1 (no driver on CI): NVML's reference-counted init/shutdown and
   a few queries that fail once the count is back to zero, as the real library's do. Lets the CPU
   tests check that kp::gpu::Nvml keeps NVML initialized while it is in use. */
#include <stdlib.h>
#include <string.h>

static int initialized;

int nvmlInit_v2(void) { ++initialized; return 0; }
int nvmlShutdown(void) { if (initialized > 0) --initialized; return 0; }
const char* nvmlErrorString(int result) { return result == 1 ? "Uninitialized" : "Unknown Error"; }

int nvmlSystemGetDriverVersion(char* version, unsigned length) {
    if (!initialized) return 1; /* NVML_ERROR_UNINITIALIZED */
    strncpy(version, "999.12.34", length);
    return 0;
}
int nvmlDeviceGetCount_v2(unsigned* count) {
    if (!initialized) return 1;
    *count = 1;
    return 0;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned index, void** device) {
    if (!initialized) return 1;
    if (index != 0) return 2; /* NVML_ERROR_INVALID_ARGUMENT */
    *device = (void*)&initialized;
    return 0;
}
int nvmlDeviceGetClockInfo(void* device, int type, unsigned* clock) {
    (void)device;
    if (!initialized) return 1;
    *clock = type == 1 ? 1755u : 3201u; /* SM, memory */
    return 0;
}
/* One GPU at PCI bus id 0000:3B:00.0; its clock event reasons come from $FAKE_NVML_CLOCK_EVENT_REASONS
   (a hexadecimal mask), so a test can make the GPU look throttled. */
int nvmlDeviceGetHandleByPciBusId_v2(const char* bus_id, void** device) {
    if (!initialized) return 1;
    if (strcmp(bus_id, "0000:3B:00.0") != 0) return 6; /* NVML_ERROR_NOT_FOUND */
    *device = (void*)&initialized;
    return 0;
}
int nvmlDeviceGetIndex(void* device, unsigned* index) {
    (void)device;
    if (!initialized) return 1;
    *index = 0;
    return 0;
}
int nvmlDeviceGetCurrentClocksEventReasons(void* device, unsigned long long* reasons) {
    (void)device;
    if (!initialized) return 1;
    const char* mask = getenv("FAKE_NVML_CLOCK_EVENT_REASONS");
    *reasons = mask ? strtoull(mask, 0, 16) : 0;
    return 0;
}
/* The total-energy counter: 7 mJ more at every read, like a busy GPU's. */
int nvmlDeviceGetTotalEnergyConsumption(void* device, unsigned long long* millijoules) {
    static unsigned long long energy = 1000000ull;
    (void)device;
    if (!initialized) return 1;
    energy += 7;
    *millijoules = energy;
    return 0;
}
