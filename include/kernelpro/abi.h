/* kernelpro candidate ABI, version 1.
 *
 * The one public contract between kernelpro and a kernel. A candidate is a CUDA source file that
 * kernelpro compiles into a shared library; the library exports the functions below with C
 * linkage. The harness owns the CUDA context, every allocation of inputs and outputs, and the
 * stream; the candidate only launches work on the stream it is given.
 *
 * Plain C: a candidate needs no C++ beyond what nvcc needs for __global__ functions.
 */
#ifndef KERNELPRO_ABI_H
#define KERNELPRO_ABI_H

#include <stdint.h>
#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KP_ABI_VERSION 1
#define KP_MAX_DIMS 8

typedef enum { KP_F32, KP_F16, KP_BF16, KP_F64, KP_I32, KP_I64, KP_U8, KP_BOOL } kp_dtype;

/* A device tensor. Strides are in elements. Inputs and outputs come in the order the task lists
 * them, with contiguous (row-major) strides unless the task says otherwise. */
typedef struct {
    void* data;
    kp_dtype dtype;
    int ndim;
    int64_t shape[KP_MAX_DIMS];
    int64_t stride[KP_MAX_DIMS];
} kp_tensor;

/* Required: launch the computation on `stream`; return 0, or non-zero for a candidate-side error. */
int kp_forward(const kp_tensor* inputs, int n_inputs, kp_tensor* outputs, int n_outputs,
               cudaStream_t stream);

/* Optional: called once after load with shapes only (data == NULL), and once before unload. */
int kp_setup(const kp_tensor* inputs, int n_inputs, const kp_tensor* outputs, int n_outputs);
void kp_teardown(void);

#ifdef __cplusplus
}
#endif

/* Export helper for candidate sources: `KP_EXPORT int kp_forward(...)`. */
#ifdef __cplusplus
#define KP_EXPORT extern "C" __attribute__((visibility("default")))
#else
#define KP_EXPORT __attribute__((visibility("default")))
#endif

#endif /* KERNELPRO_ABI_H */
