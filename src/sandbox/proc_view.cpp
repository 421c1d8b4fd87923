#include "sandbox/proc_view.h"

#include <sys/uio.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace kp::sandbox {

namespace fs = std::filesystem;

namespace {
std::string proc_path(pid_t thread, const std::string& entry) { return "/proc/" + std::to_string(thread) + "/" + entry; }

bool read_memory(pid_t thread, uint64_t address, void* into, size_t size, size_t* got) {
    iovec local{into, size};
    iovec remote{reinterpret_cast<void*>(address), size};
    ssize_t n = ::process_vm_readv(thread, &local, 1, &remote, 1, 0);
    if (n <= 0) return false;
    *got = static_cast<size_t>(n);
    return true;
}
}  // namespace

std::optional<std::string> ProcProcessView::read_string(pid_t thread, uint64_t address) const {
    if (address == 0) return std::nullopt;
    // Page by page, so a string that ends just before an unmapped page is still read.
    std::string out;
    while (out.size() < 4096) {
        char buffer[256];
        size_t chunk = 256 - static_cast<size_t>((address + out.size()) % 256), got = 0;
        if (!read_memory(thread, address + out.size(), buffer, chunk, &got)) return out.empty() ? std::nullopt : std::optional(out);
        const char* end = static_cast<const char*>(std::memchr(buffer, '\0', got));
        if (end) return out + std::string(buffer, static_cast<size_t>(end - buffer));
        out.append(buffer, got);
    }
    return out;
}

std::optional<uint64_t> ProcProcessView::read_word(pid_t thread, uint64_t address) const {
    uint64_t word = 0;
    size_t got = 0;
    if (!read_memory(thread, address, &word, sizeof word, &got) || got != sizeof word) return std::nullopt;
    return word;
}

std::optional<std::string> ProcProcessView::proc_link(pid_t thread, const std::string& link) const {
    char target[4096];
    ssize_t n = ::readlink(proc_path(thread, link).c_str(), target, sizeof target - 1);
    if (n <= 0) return std::nullopt;
    return std::string(target, static_cast<size_t>(n));
}

std::string ProcProcessView::canonical(const std::string& absolute_path) const {
    std::error_code ec;
    auto c = fs::weakly_canonical(absolute_path, ec);
    return ec ? normalize_lexically(absolute_path) : c.string();
}

bool ProcProcessView::exists(const std::string& canonical_path) const {
    std::error_code ec;
    return std::filesystem::exists(canonical_path, ec) || ec;  // unknown (EACCES ...): as if there
}

std::string ProcProcessView::thread_name(pid_t thread) const {
    std::ifstream in(proc_path(thread, "comm"));
    std::string name;
    std::getline(in, name);
    return name.empty() ? "thread " + std::to_string(thread) : name;
}

std::string ProcProcessView::object_at(pid_t thread, uint64_t address) const {
    std::ifstream maps(proc_path(thread, "maps"));
    for (std::string line; std::getline(maps, line);) {
        unsigned long long begin = 0, end = 0;
        if (std::sscanf(line.c_str(), "%llx-%llx", &begin, &end) != 2 || address < begin || address >= end) continue;
        auto slash = line.find('/');
        if (slash == std::string::npos) return line.find('[') != std::string::npos ? line.substr(line.find('[')) : "anonymous memory";
        return fs::path(line.substr(slash)).filename().string();
    }
    return "";
}

SandboxedProcess describe_sandboxed_process(pid_t process) {
    SandboxedProcess described;
    std::error_code ec;
    for (const auto& task : fs::directory_iterator(proc_path(process, "task"), ec)) {
        pid_t tid = static_cast<pid_t>(std::stol(task.path().filename().string()));
        if (tid != process) described.threads_before.insert(tid);
        std::ifstream status(task.path() / "status");
        for (std::string line; std::getline(status, line);) {
            if (line.rfind("NSpid:", 0) != 0) continue;
            std::istringstream ids(line.substr(6));
            long id = 0, last = 0;
            while (ids >> id) last = id;
            described.own_ids.insert(last);
        }
    }
    return described;
}

}  // namespace kp::sandbox
