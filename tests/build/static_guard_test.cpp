#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "build/static_guard.h"
#include "build/syscall_scan.h"
#include "common/files.h"
#include "common/process.h"

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

// libgcc's arithmetic helpers, which host code gets for 128-bit division (CUTLASS's tile scheduler)
// and float conversions; a name that only starts like one is still refused.
TEST(StaticGuard, AcceptsTheCompilersArithmeticHelpers) {
    EXPECT_TRUE(rejected({"__udivti3@GCC_4.0.0", "__umodti3", "__divti3", "__modti3", "__udivmodti4", "__ashlti3", "__lshrti3",
                          "__multi3", "__popcountdi2", "__clzdi2", "__floattidf", "__floatuntisf", "__fixunsdfti", "__fixtfdi",
                          "__extendhfsf2", "__truncsfhf2"})
                    .empty());
    EXPECT_EQ(rejected({"__udivti3_and_more", "__divti3x", "__fixunsdfti_open"}).size(), 3u);
}

// The policy's fingerprint goes into every guarded build's cache key (a verdict is reused only
// under the policy that gave it): a SHA-256, the same on every call.
TEST(StaticGuard, ThePolicyHasOneFingerprint) {
    const std::string fingerprint = guard_policy_fingerprint();
    EXPECT_EQ(fingerprint.size(), 64u);
    EXPECT_EQ(fingerprint.find_first_not_of("0123456789abcdef"), std::string::npos) << fingerprint;
    EXPECT_EQ(guard_policy_fingerprint(), fingerprint);
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

// CUTLASS tasks launch clusters through the launch gate and encode TMA descriptors; the original
// cudaLaunchKernelExC (reached through __real_ or the per-thread name) stays forbidden for them too.
TEST(StaticGuard, CutlassAdmitsTheLaunchGateAndTheTmaEncodersOnly) {
    const std::vector<std::string> cutlass_calls{"__wrap_cudaLaunchKernelExC", "cuTensorMapEncodeTiled", "cuTensorMapEncodeIm2col",
                                                 "cuGetErrorString"};
    EXPECT_TRUE(rejected(cutlass_calls, {"cutlass"}).empty());
    auto v = check_symbols({"__wrap_cudaLaunchKernelExC"}, {});
    ASSERT_EQ(v.size(), 1u);
    EXPECT_NE(v[0].reason.find("library cutlass is not allowed by this task"), std::string::npos) << v[0].reason;
    for (const char* s : {"cudaLaunchKernelExC@libcudart.so.13", "cudaLaunchKernelExC_ptsz", "cudaGetDriverEntryPointByVersion",
                          "cuLaunchKernelEx", "cuGetProcAddress_v2"}) {
        auto denied = check_symbols({s}, {"cutlass"});
        ASSERT_EQ(denied.size(), 1u) << s;
        EXPECT_FALSE(denied[0].reason.empty());
    }
    // A candidate's own gate would be linked in place of kernelpro's: exporting one is refused.
    EXPECT_TRUE(exported_symbol_interposes("__wrap_cudaLaunchKernelExC"));
    EXPECT_TRUE(exported_symbol_interposes("__real_cudaLaunchKernelExC"));
    EXPECT_FALSE(exported_symbol_interposes("kp_forward"));
}

TEST(StaticGuard, UnknownCallsAreRejected) {
    EXPECT_EQ(rejected({"mysterious_call"}), std::vector<std::string>{"mysterious_call"});
}

namespace {
// A shared library built here with the system compiler from `source` (C).
std::filesystem::path build_library(const std::string& name, const std::string& source) {
    auto dir = kp::make_temp_directory("kp-guard-").value();
    std::ofstream(dir / (name + ".c")) << source;
    auto built = kp::run_process({"cc", "-shared", "-fPIC", "-O1", "-o", (dir / (name + ".so")).string(), (dir / (name + ".c")).string()});
    EXPECT_TRUE(built.ok() && built->succeeded()) << (built.ok() ? built->stderr_text : built.error().message);
    return dir / (name + ".so");
}
}  // namespace

TEST(SyscallScan, ExecutableSectionsIncludeCodeOutsideText) {
    const std::string sections = R"(Section Headers:
  [Nr] Name              Type            Address          Off    Size   ES Flg Lk Inf Al
  [ 0]                   NULL            0000000000000000 000000 000000 00      0   0  0
  [ 3] .dynsym           DYNSYM          0000000000000288 000288 0000a8 18   A  4   1  8
  [10] .text             PROGBITS        0000000000001050 001050 0000d3 00  AX  0   0 16
  [11] .kp_hidden        PROGBITS        0000000000001130 001130 000006 00  AX  0   0 16
  [12] .rodata_code      PROGBITS        0000000000001140 001140 000010 00   A  0   0 16
  [13] .rodata           PROGBITS        0000000000002000 002000 000010 00   A  0   0 16
  [21] .bss              NOBITS          0000000000004010 003010 000008 00  WA  0   0  1
  [23] .symtab           SYMTAB          0000000000000000 003038 000270 18     24  20  8
)";
    const std::string segments = R"(Program Headers:
  Type           Offset   VirtAddr           PhysAddr           FileSiz  MemSiz   Flg Align
  LOAD           0x000000 0x0000000000000000 0x0000000000000000 0x000458 0x000458 R   0x1000
  LOAD           0x001000 0x0000000000001000 0x0000000000001000 0x000150 0x000150 R E 0x1000
  LOAD           0x002000 0x0000000000002000 0x0000000000002000 0x0000b8 0x0000b8 R   0x1000
)";
    // .rodata_code has no X flag but lies in the executable segment: it is scanned too.
    EXPECT_EQ(kp::executable_section_names(sections, segments), (std::vector<std::string>{".text", ".kp_hidden", ".rodata_code"}));
}

TEST(SyscallScan, FindsASystemCallInItsOwnSectionAndNamesIt) {
    if (!kp::find_executable("cc") || !kp::find_executable("objdump")) GTEST_SKIP() << "no cc or objdump here";
    auto hidden = build_library("hidden", R"(
        __attribute__((section(".kp_hidden"), noinline)) long raw(long n) {
            long r;
            __asm__ volatile("syscall" : "=a"(r) : "a"(n) : "rcx", "r11", "memory");
            return r;
        }
        int kp_forward(void) { return (int)raw(39); })");
    auto found = kp::find_system_call_instruction(hidden);
    ASSERT_TRUE(found.has_value());
    EXPECT_EQ(found->symbol, "syscall instruction in section .kp_hidden");
    auto legacy = build_library("legacy", R"(long raw(long n) { long r; __asm__ volatile("int $0x80" : "=a"(r) : "a"(n)); return r; })");
    auto int80 = kp::find_system_call_instruction(legacy);
    ASSERT_TRUE(int80.has_value());
    EXPECT_EQ(int80->symbol, "int $0x80 instruction in section .text");
    auto clean = build_library("clean", "int kp_forward(void) { return 0; }");
    EXPECT_FALSE(kp::find_system_call_instruction(clean).has_value());
}
