// Tensor-core rate: an 8192^3 cuBLAS GEMM on random bf16 or fp16 data (fp32 accumulation), the
// shape the datasheet-vs-measured comparisons in docs/device.md use. cuBLAS is opened at
// run time, so a machine without it still gets the other ceilings.
#include <cublas_api.h>

#include <cstdlib>
#include <string>

#include "gpu/ceilings/benchmarks.h"
#include "gpu/dynamic_library.h"

namespace kp::ceilings {

namespace {

struct Cublas {
    gpu::DynamicLibrary library;
    cublasStatus_t (*create)(cublasHandle_t*) = nullptr;
    cublasStatus_t (*destroy)(cublasHandle_t) = nullptr;
    cublasStatus_t (*set_stream)(cublasHandle_t, cudaStream_t) = nullptr;
    cublasStatus_t (*gemm_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                              const void*, cudaDataType, int, const void*, cudaDataType, int, const void*, void*,
                              cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t) = nullptr;
};

Cublas load_cublas() {
    std::vector<std::string> names;
    if (const char* explicit_path = std::getenv("KP_CUBLAS_LIBRARY"); explicit_path && *explicit_path)
        names.push_back(explicit_path);
    names.insert(names.end(), {"libcublas.so.13", "libcublas.so.12", "libcublas.so"});
    for (const char* variable : {"CUDA_HOME", "CUDA_PATH"})
        if (const char* value = std::getenv(variable); value && *value)
            names.push_back(std::string(value) + "/lib64/libcublas.so.13");
    names.push_back("/usr/local/cuda/lib64/libcublas.so.13");
    auto library = gpu::DynamicLibrary::open(names);
    if (!library) throw std::runtime_error("cuBLAS not available: " + library.error().message);
    Cublas cublas;
    cublas.library = *library;
    bool complete = cublas.library.bind(cublas.create, "cublasCreate_v2") &&
                    cublas.library.bind(cublas.destroy, "cublasDestroy_v2") &&
                    cublas.library.bind(cublas.set_stream, "cublasSetStream_v2") &&
                    cublas.library.bind(cublas.gemm_ex, "cublasGemmEx");
    if (!complete) throw std::runtime_error(cublas.library.loaded_name() + " lacks cublasGemmEx or handle functions");
    return cublas;
}

void check_cublas(cublasStatus_t status, const char* what) {
    if (status != CUBLAS_STATUS_SUCCESS)
        throw std::runtime_error(std::string(what) + " failed with cuBLAS status " + std::to_string(static_cast<int>(status)));
}

}  // namespace

gpu::Ceiling measure_tensor_gemm(BenchmarkContext& context, TensorPrecision precision) {
    bool bf16 = precision == TensorPrecision::bf16;
    gpu::Ceiling ceiling;
    ceiling.name = bf16 ? "tensor_bf16" : "tensor_fp16";
    ceiling.unit = "flop/s";
    Cublas cublas = load_cublas();
    constexpr int n = 8192;
    const std::size_t elements = static_cast<std::size_t>(n) * n;
    cudaDataType type = bf16 ? CUDA_R_16BF : CUDA_R_16F;

    void* a = nullptr;
    void* b = nullptr;
    void* c = nullptr;
    cublasHandle_t handle = nullptr;
    auto release = [&] {
        if (handle) cublas.destroy(handle);
        cudaFree(a);
        cudaFree(b);
        cudaFree(c);
    };
    try {
        check_cuda(cudaMalloc(&a, elements * 2), "cudaMalloc");
        check_cuda(cudaMalloc(&b, elements * 2), "cudaMalloc");
        check_cuda(cudaMalloc(&c, elements * 2), "cudaMalloc");
        fill_random_16bit(a, elements, precision, 11, context.stream);
        fill_random_16bit(b, elements, precision, 12, context.stream);
        check_cublas(cublas.create(&handle), "cublasCreate");
        check_cublas(cublas.set_stream(handle, context.stream), "cublasSetStream");
        const float alpha = 1.0f, beta = 0.0f;
        ceiling.method = std::string("cublasGemmEx ") + (bf16 ? "bf16" : "fp16") +
                         " 8192x8192x8192, fp32 accumulate, random inputs in [-1, 1)";
        TimingPolicy policy = context.policy;
        policy.warmups = std::max(policy.warmups, 5);  // cuBLAS picks and loads its kernel on the first calls
        BenchmarkContext gemm_context{context.device, context.sampler, context.stream, policy};
        time_into(gemm_context, ceiling, 2.0 * n * n * static_cast<double>(n), [&](cudaStream_t) {
            check_cublas(cublas.gemm_ex(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a, type, n, b, type, n,
                                        &beta, c, type, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                         "cublasGemmEx");
        });
    } catch (...) {
        release();
        throw;
    }
    release();
    return ceiling;
}

}  // namespace kp::ceilings
