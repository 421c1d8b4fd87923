#include <gtest/gtest.h>

#include "build/static_guard.h"

using namespace kp;

namespace {
std::vector<std::string> rejected(const std::vector<std::string>& symbols, const std::vector<std::string>& libs = {}) {
    std::vector<std::string> names;
    for (const auto& v : check_symbols(symbols, libs)) names.push_back(v.symbol);
    return names;
}
}  // namespace

TEST(StaticGuard, AcceptsWhatKernelsNeed) {
    EXPECT_TRUE(rejected({"cudaLaunchKernel@libcudart.so.13", "__cudaRegisterFatBinary", "__cudaRegisterFunction",
                          "__cudaPushCallConfiguration", "cudaGetLastError", "cudaFuncSetAttribute",
                          "cudaOccupancyMaxActiveBlocksPerMultiprocessor", "cudaMalloc", "cudaFree", "cudaMemsetAsync",
                          "memcpy@GLIBC_2.14", "printf", "_Znwm", "__cxa_atexit", "sqrtf", "abort"})
                    .empty());
}

TEST(StaticGuard, RejectsEveryForbiddenFamilyByName) {
    for (const char* s : {"cudaStreamCreate", "cudaStreamCreateWithFlags", "cudaEventCreate", "cudaEventRecord",
                          "cudaGraphLaunch", "cudaStreamBeginCapture", "cudaStreamSetAttribute", "cudaCtxResetPersistingL2Cache",
                          "cudaDeviceSetLimit", "pthread_create", "fork", "execve", "system", "popen", "fopen", "open64",
                          "fread", "socket", "connect", "dlopen", "dlsym", "cudaLaunchHostFunc", "cudaStreamAddCallback",
                          "clock_gettime", "gettimeofday", "usleep", "cudaGetDriverEntryPoint", "cudaMallocManaged",
                          "_ZNSt6thread15_M_start_threadESt10unique_ptrINS_6_StateESt14default_deleteIS1_EEPFvvE",
                          "_ZNSt14basic_ifstreamIcSt11char_traitsIcEEC1EPKcSt13_Ios_Openmode", "getenv", "cudaSetDevice"}) {
        auto v = check_symbols({s}, {});
        ASSERT_EQ(v.size(), 1u) << s;
        EXPECT_EQ(v[0].symbol, s);
        EXPECT_FALSE(v[0].reason.empty());
    }
}

TEST(StaticGuard, LibrariesOnlyWhenTheTaskAllowsThem) {
    EXPECT_EQ(rejected({"cublasGemmEx"}), std::vector<std::string>{"cublasGemmEx"});
    EXPECT_TRUE(rejected({"cublasGemmEx", "cublasCreate_v2"}, {"cublas"}).empty());
    auto v = check_symbols({"curandGenerate"}, {"cublas"});
    ASSERT_EQ(v.size(), 1u);
    EXPECT_NE(v[0].reason.find("not allowed by this task"), std::string::npos);
}

TEST(StaticGuard, UnknownCallsAreRejected) {
    EXPECT_EQ(rejected({"mysterious_call"}), std::vector<std::string>{"mysterious_call"});
}
