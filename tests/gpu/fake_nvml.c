/* A stand-in for libnvidia-ml.so.1 (no driver on CI): NVML's reference-counted init/shutdown and
   a few queries that fail once the count is back to zero, as the real library's do. Lets the CPU
   tests check that kp::gpu::Nvml keeps NVML initialized while it is in use. */
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
