#include "build/static_guard.h"

#include <algorithm>
#include <map>
#include <regex>
#include <sstream>

#include "build/syscall_scan.h"
#include "common/hash.h"
#include "common/process.h"

namespace kp {

namespace {

struct Rule {
    const char* pattern;  // ECMAScript regex matched against the whole symbol (version suffix removed)
    const char* reason;
};

// Forbidden: each rule names why, so the message teaches the writer what to do instead.
const std::vector<Rule>& deny_rules() {
    static const std::vector<Rule> rules{
        {"cuda(Stream(Create|Destroy|BeginCapture|EndCapture|SetAttribute|AddCallback|AttachMemAsync|WaitEvent|Query|GetPriority|GetFlags)|StreamCreate\\w*).*|cuStream\\w*",
         "stream API: the harness owns the only stream; launch on the stream kp_forward receives"},
        {"cudaEvent\\w*|cuEvent\\w*", "event API: timing belongs to the harness"},
        {"cudaGraph\\w*|cuGraph\\w*|cudaUserObject\\w*|cudaStreamIsCapturing", "CUDA graphs: the harness owns launches and capture"},
        {"cudaCtxResetPersistingL2Cache|cudaDeviceSetLimit|cuCtxSetLimit|cudaDeviceSetCacheConfig|cudaDeviceSetSharedMemConfig|cudaCtxSetLimit",
         "device limits / persisting-L2 settings: would change the measurement conditions"},
        {"cudaMallocManaged|cuMemAllocManaged|cudaMemAdvise\\w*|cudaMemPrefetchAsync\\w*", "managed memory: not allowed in candidates"},
        {"cudaSetDevice\\w*|cudaDeviceReset|cudaSetValidDevices|cudaDeviceSetMemPool|cudaDeviceSetGraphMemAttribute|cudaIpc\\w*|cuIpc\\w*",
         "device or context management belongs to the harness"},
        {"cudaLaunchHostFunc|cuLaunchHostFunc|cudaStreamAddCallback", "host callbacks: work outside the timed stream"},
        {"cudaLaunchKernelEx\\w*",
         "launches with attributes (access-policy windows, priorities): use <<<>>> and __cluster_dims__ for clusters; in a "
         "task that allows cutlass, cudaLaunchKernelEx goes through the launch gate, which checks its attributes (docs/cutlass.md)"},
        {"cudaGetDriverEntryPoint\\w*|cuGetProcAddress\\w*|cudaGetExportTable|cuGetExportTable|cuInit|cuCtx\\w*|cuLaunch\\w*|cuModule\\w*|cuLibrary\\w*",
         "driver API: candidates use the runtime API the guard can check"},
        {"dlopen|dlsym|dlvsym|dlmopen|dlclose|dladdr\\w*|dlinfo|dl_iterate_phdr", "dynamic loading: would reach forbidden calls at run time"},
        {"pthread_create|pthread_detach|clone|clone3|thrd_create|_ZNSt6thread\\w*|_ZNSt10jthread\\w*|__pthread_create\\w*|std::thread",
         "host threads: work after the timer stops is invisible to the harness"},
        {"fork|vfork|execv\\w*|execl\\w*|execve|fexecve|system|popen|posix_spawn\\w*|kill|ptrace|prctl|seccomp",
         "processes: candidates may not start programs"},
        {"f?open(64)?|openat(64)?|creat(64)?|fdopen|freopen|fread|fwrite|read|write|pread(64)?|pwrite(64)?|readv|writev|"
         "fgets|fgetc|getline|fscanf|mmap(64)?|munmap|mprotect|shm_open|memfd_create|unlink|remove|rename|mkdir|rmdir|"
         "opendir|readdir(64)?|stat(64)?|fstat(64)?|lstat(64)?|__xstat\\w*|access|faccessat|dup|dup2|dup3|pipe|pipe2|ioctl|"
         "fcntl(64)?|truncate|ftruncate|sendfile|splice|tmpfile|mkstemp\\w*|dprintf|vdprintf|syscall|__syscall\\w*",
         "file and system I/O: a candidate reads only the tensors it is given"},
        {"socket|connect|bind|listen|accept4?|send|sendto|sendmsg|recv|recvfrom|recvmsg|getaddrinfo|gethostbyname\\w*",
         "sockets: candidates may not use the network"},
        {"_ZNSt\\d*basic_(i|o)?fstream\\w*|_ZNSt\\d*basic_filebuf\\w*|_ZNSt\\d*__basic_file\\w*|_ZNSt7__cxx\\d+basic_(i|o)?fstream\\w*",
         "file streams: a candidate reads only the tensors it is given"},
        {"clock_gettime|gettimeofday|time|clock|times|ftime|timer_create|timer_settime|setitimer|alarm|nanosleep|clock_nanosleep|"
         "usleep|sleep|sched_yield|_ZNSt6chrono\\w*now\\w*|_ZNSt11this_thread\\w*|__rdtsc",
         "timers and sleeps: a candidate must not observe or shape the timing"},
        {"getenv|secure_getenv|setenv|putenv|unsetenv|environ|__environ|getpid|getppid", "process environment: not a kernel's business"},
        {"signal|sigaction|sigprocmask|raise|setjmp|longjmp|_setjmp|__longjmp_chk|sigsetjmp|siglongjmp",
         "signal handling: would interfere with the worker's failure handling"},
        {"_ZNSt13random_device\\w*|getrandom|rand|srand|random|srandom", "host randomness: candidates must be deterministic"},
    };
    return rules;
}

// Accepted without a library: the CUDA runtime's registration and launch machinery, kernel-facing
// runtime calls, and the C/C++ runtime pieces ordinary code pulls in.
const std::vector<const char*>& allow_patterns() {
    static const std::vector<const char*> patterns{
        "__cuda\\w*", "__nv\\w*", "__fatbinwrap\\w*",
        "cudaLaunchKernel(_v\\d+)?|cudaLaunchCooperativeKernel\\w*",
        "cudaGetLastError|cudaPeekAtLastError|cudaGetErrorString|cudaGetErrorName",
        "cudaFuncSetAttribute|cudaFuncGetAttributes|cudaFuncSetCacheConfig|cudaFuncGetName|cudaOccupancy\\w*",
        "cudaGetDevice|cudaGetDeviceCount|cudaGetDeviceProperties(_v\\d+)?|cudaDeviceGetAttribute|cudaDriverGetVersion|cudaRuntimeGetVersion",
        "cudaMalloc|cudaMallocAsync|cudaFree|cudaFreeAsync|cudaMallocPitch|cudaMemGetInfo|cudaMallocHost|cudaFreeHost|cudaHostAlloc",
        "cudaMemset(Async|2D|2DAsync|D\\w*)?|cudaMemcpy(Async|2D|2DAsync|ToSymbol|ToSymbolAsync|FromSymbol|FromSymbolAsync|PeerAsync)?",
        "cudaGetSymbolAddress|cudaGetSymbolSize|cudaDeviceSynchronize|cudaStreamSynchronize|cudaGetFuncBySymbol|cudaGetKernel",
        "cudaCreateTextureObject|cudaDestroyTextureObject|cudaCreateChannelDesc",
        // C runtime
        "mem(cpy|set|move|cmp|chr)|__mem\\w*_chk|str\\w+|__str\\w*_chk|printf|puts|putchar|fprintf|vfprintf|__fprintf_chk|__printf_chk|"
        "snprintf|sprintf|vsnprintf|vsprintf|__snprintf_chk|__sprintf_chk|__vsnprintf_chk|fputs|fputc|fflush|perror|stdout|stderr|"
        "malloc|calloc|realloc|free|aligned_alloc|posix_memalign|abort|exit|_exit|atexit|__cxa_\\w+|__gxx_personality_v0|_Unwind_\\w+|"
        "__stack_chk_fail|__assert_fail|__errno_location|qsort|bsearch|abs|labs|llabs|div|ldiv|ato[if]|strto\\w+|__isoc\\w+|"
        "__gmon_start__|_ITM_\\w+|__tls_get_addr|__dso_handle|_GLOBAL_OFFSET_TABLE_|__libc_single_threaded|__once_proxy|"
        "pthread_once|pthread_mutex_(lock|unlock|init|destroy)|pthread_key_create|pthread_getspecific|pthread_setspecific|"
        "__pthread_key_create|__cxa_thread_atexit_impl",
        // The compiler's arithmetic helpers (libgcc): 128-bit division and shifts, float/int
        // conversions, bit counts. Pure functions of their arguments (CUTLASS's host-side tile
        // scheduler divides 128-bit values: __udivti3).
        "__(u?(div|mod)[dt]i3|udivmod[dt]i4|(ash|lsh)[lr][dt]i3|mul[dt]i3|(popcount|clz|ctz|ffs|parity)[sdt]i2|"
        "(float|floatun)[sdt]i[sdtx]f|(fix|fixuns)[sdtx]f[sdt]i|extend\\w+f2|trunc\\w+f2)",
        // libm
        "(a?(sin|cos|tan)h?|atan2|exp(2|10|m1)?|log(2|10|1p)?|pow|sqrt|cbrt|hypot|fabs|floor|ceil|round|trunc|fmod|remainder|"
        "fmin|fmax|fma|ldexp|frexp|modf|erf|erfc|tgamma|lgamma|nearbyint|rint|lrint|llrint|lround|llround|copysign|nan|"
        "isnan|isinf|__isnan|__isinf|__finite)(f|l)?",
        // C++ runtime: operator new/delete, exceptions, and the standard library apart from what the deny
        // rules catch first (threads, file streams, clocks, random_device).
        "_Zn[wa]\\w*|_Zd[la]\\w*|_ZSt\\w+|_ZNSt\\w+|_ZNKSt\\w+|_ZTI\\w+|_ZTS\\w+|_ZTV\\w+|_ZNSo\\w*|_ZNSi\\w*|_ZNKSo\\w*|_ZN9__gnu_cxx\\w+|_ZN10__cxxabiv\\w+",
    };
    return patterns;
}

const std::vector<std::pair<std::string, std::string>>& library_patterns() {
    static const std::vector<std::pair<std::string, std::string>> libs{
        {"cublas", "cublas\\w*"}, {"cublasLt", "cublasLt\\w*"}, {"curand", "curand\\w*"},
        // CUTLASS: cluster launches through the launch gate (the builder links every
        // cudaLaunchKernelExC there), the TMA descriptor encoders (host functions that fill a
        // descriptor and touch no GPU state) and the driver's error text.
        {"cutlass", "__wrap_cudaLaunchKernelExC|cuTensorMapEncode(Tiled|Im2col|Im2colWide)|cuGetErrorString|cuGetErrorName"}};
    return libs;
}

std::string strip_version(const std::string& symbol) {
    auto at = symbol.find('@');
    return at == std::string::npos ? symbol : symbol.substr(0, at);
}

bool matches(const std::string& pattern, const std::string& symbol) {
    // Compiling these alternations is far slower than matching: keep them per thread.
    thread_local std::map<std::string, std::regex> compiled;
    auto it = compiled.find(pattern);
    if (it == compiled.end()) it = compiled.emplace(pattern, std::regex(pattern, std::regex::optimize)).first;
    return std::regex_match(symbol, it->second);
}

// Bumped when the guard's code decides differently with the same patterns (the syscall scan,
// the export check, how a symbol is matched).
constexpr const char* kGuardLogicVersion = "kp-guard-1";

}  // namespace

std::string guard_policy_fingerprint() {
    static const std::string fingerprint = [] {
        Sha256 hasher;
        hasher.add(kGuardLogicVersion);
        for (const auto& rule : deny_rules()) hasher.add("deny").add(rule.pattern).add(rule.reason);
        for (const auto* pattern : allow_patterns()) hasher.add("allow").add(pattern);
        for (const auto& [lib, pattern] : library_patterns()) hasher.add("library").add(lib).add(pattern);
        return hasher.hex();
    }();
    return fingerprint;
}

bool exported_symbol_interposes(const std::string& symbol) {
    // __wrap_/__real_: a candidate's own launch gate (ld --wrap) would bypass kernelpro's.
    if (matches("cuda[A-Z]\\w*|cu[A-Z]\\w*|nvml\\w*|cupti\\w*|cublas\\w*|__cuda\\w*Launch\\w*|__wrap_\\w+|__real_\\w+", symbol))
        return true;
    for (const auto& rule : deny_rules())
        if (matches(rule.pattern, symbol)) return true;
    return false;
}

std::vector<GuardViolation> check_symbols(const std::vector<std::string>& undefined_symbols,
                                          const std::vector<std::string>& allowed_libraries) {
    std::vector<GuardViolation> violations;
    for (const auto& raw : undefined_symbols) {
        std::string symbol = strip_version(raw);
        bool decided = false;
        for (const auto& rule : deny_rules()) {
            if (matches(rule.pattern, symbol)) {
                violations.push_back({symbol, rule.reason});
                decided = true;
                break;
            }
        }
        if (decided) continue;
        bool allowed = false;
        for (const auto* pattern : allow_patterns()) allowed = allowed || matches(pattern, symbol);
        std::string library_reason;
        for (const auto& [lib, pattern] : library_patterns()) {
            if (allowed || !matches(pattern, symbol)) continue;
            bool task_allows = std::find(allowed_libraries.begin(), allowed_libraries.end(), lib) != allowed_libraries.end();
            if (task_allows) allowed = true;
            else library_reason = "library " + lib + " is not allowed by this task ([build] libraries)";
        }
        if (!allowed && !library_reason.empty()) {
            violations.push_back({symbol, library_reason});
            continue;
        }
        if (!allowed) violations.push_back({symbol, "not on the list of calls a candidate may make"});
    }
    return violations;
}

std::string GuardReport::describe() const {
    std::ostringstream out;
    if (!exports_forward) out << "kp_forward: not exported with C linkage (see include/kernelpro/abi.h)\n";
    for (const auto& v : violations) out << v.symbol << ": " << v.reason << "\n";
    return out.str();
}

Result<GuardReport> guard_library(const std::filesystem::path& library,
                                  const std::vector<std::string>& allowed_libraries) {
    GuardReport report;
    auto undefined = run_process({"nm", "-D", "--undefined-only", "--format=posix", library.string()});
    if (!undefined.ok()) return undefined.error();
    if (!undefined->succeeded()) return make_error("static guard: " + undefined->describe_failure() + "\n" + undefined->stderr_text);
    std::istringstream lines(undefined->stdout_text);
    for (std::string line; std::getline(lines, line);) {
        std::istringstream fields(line);
        std::string name;
        fields >> name;
        if (!name.empty()) report.undefined_symbols.push_back(name);
    }
    report.violations = check_symbols(report.undefined_symbols, allowed_libraries);

    auto defined = run_process({"nm", "-D", "--defined-only", "--format=posix", library.string()});
    if (!defined.ok()) return defined.error();
    std::istringstream def_lines(defined->stdout_text);
    for (std::string line; std::getline(def_lines, line);) {
        std::istringstream fields(line);
        std::string name, type;
        fields >> name >> type;
        if (name == "kp_forward" && (type == "T" || type == "t")) report.exports_forward = true;
        if (exported_symbol_interposes(strip_version(name)))
            report.violations.push_back({strip_version(name), "exports a function of the CUDA or C runtime: interposing on the harness is forbidden"});
    }

    if (auto raw = find_system_call_instruction(library)) report.violations.push_back(*raw);
    return report;
}

}  // namespace kp
