#include "sandbox/resource_limits.h"

#include <signal.h>
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace kp::sandbox {

namespace {
Status set_limit(int resource, rlim_t value, const char* name) {
    rlimit limit{value, value};
    if (::setrlimit(resource, &limit) != 0) return make_error(std::string("setrlimit ") + name + ": " + std::strerror(errno));
    return {};
}

rlim_t open_descriptors() {
    std::error_code ec;
    rlim_t count = 0;
    for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec); !ec && it != std::filesystem::directory_iterator();
         it.increment(ec))
        ++count;
    return count;
}
}  // namespace

Result<std::string> apply_resource_limits(std::int64_t max_file_bytes) {
    if (auto s = set_limit(RLIMIT_CORE, 0, "RLIMIT_CORE"); !s) return s.error();
    ::signal(SIGXFSZ, SIG_IGN);
    if (auto s = set_limit(RLIMIT_FSIZE, static_cast<rlim_t>(max_file_bytes), "RLIMIT_FSIZE"); !s) return s.error();
    // Room for what CUDA and the reference open at run time, never above the current hard limit.
    rlimit current{};
    ::getrlimit(RLIMIT_NOFILE, &current);
    rlim_t files = std::min<rlim_t>(current.rlim_max, std::max<rlim_t>(1024, 2 * open_descriptors()));
    if (auto s = set_limit(RLIMIT_NOFILE, files, "RLIMIT_NOFILE"); !s) return s.error();
    return "no core files, files up to " + std::to_string(max_file_bytes >> 20) + " MiB, " + std::to_string(files) +
           " open files";
}

}  // namespace kp::sandbox
