// The static guard: after a candidate library is built, its undefined dynamic symbols (what it asks
// the dynamic linker for) are checked against what a kernel may use. Streams, events, graphs,
// persisting-L2 and access-policy settings, device limits, host threads, fork/exec/system, file and
// socket I/O, dlopen/dlsym, host callbacks and timers are rejected with a message naming the symbol;
// kernel launches, function attributes, occupancy queries, plain allocation and copies, and the
// libraries the task allows are accepted. A raw system-call instruction (syscall, sysenter,
// int 0x80) in any section the library maps executable is rejected too, since it would bypass every
// symbol. The guard is a first filter, not the boundary: the worker's sandbox is (src/sandbox).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "common/result.h"

namespace kp {

struct GuardViolation {
    std::string symbol;
    std::string reason;
};

struct GuardReport {
    std::vector<std::string> undefined_symbols;
    std::vector<GuardViolation> violations;
    bool exports_forward = false;  // kp_forward is defined and exported
    bool passed() const { return violations.empty() && exports_forward; }
    std::string describe() const;  // one line per violation
};

// Pure decision on a symbol list (testable without a library). `allowed_libraries` are task library
// names (cublas, cublasLt, curand, cutlass) whose symbols become acceptable; cutlass admits the
// launch gate's __wrap_cudaLaunchKernelExC (cluster launches, attributes checked at run time in
// the worker: eval/launch_gate) and the TMA descriptor encoders, never cudaLaunchKernelExC itself.
std::vector<GuardViolation> check_symbols(const std::vector<std::string>& undefined_symbols,
                                          const std::vector<std::string>& allowed_libraries);

// A hash of the guard's whole policy (every deny, allow and library rule, and its logic's version):
// part of each build's cache key, so a verdict cached under an older policy is never reused (a
// cheat the new policy catches cannot pass from the cache, nor an honest kernel stay rejected).
std::string guard_policy_fingerprint();

// True when a symbol the library defines and exports would shadow a runtime function (e.g. its own
// cudaEventElapsedTime): kernels export kp_* only.
bool exported_symbol_interposes(const std::string& symbol);

// Reads the library with `nm -D` and checks it, then scans every executable section for
// system-call instructions (build/syscall_scan.h).
Result<GuardReport> guard_library(const std::filesystem::path& library,
                                  const std::vector<std::string>& allowed_libraries);

}  // namespace kp
