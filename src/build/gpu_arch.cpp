#include "build/gpu_arch.h"

#include <cstdlib>
#include <regex>

#include "common/process.h"

namespace kp {

std::vector<std::string> GpuArch::nvcc_flags() const {
    std::string compute = "compute_" + name.substr(3);
    return {"-gencode=arch=" + compute + ",code=" + name};
}

GpuArch arch_from_compute_capability(const std::string& capability) {
    std::smatch m;
    GpuArch arch;
    if (!std::regex_search(capability, m, std::regex(R"((\d+)\.(\d+))"))) return arch;
    std::string digits = m[1].str() + m[2].str();
    arch.name = "sm_" + digits + (digits == "90" ? "a" : "");
    arch.detected = true;
    return arch;
}

GpuArch arch_specific(const GpuArch& arch) {
    std::smatch m;
    if (!std::regex_match(arch.name, m, std::regex(R"(sm_(\d+))")) || std::stoi(m[1].str()) < 90) return arch;
    GpuArch specific = arch;
    specific.name += "a";
    return specific;
}

GpuArch detect_gpu_arch() {
    if (const char* forced = std::getenv("KERNELPRO_ARCH"); forced && *forced) {
        GpuArch arch;
        arch.name = forced;
        arch.detected = true;
        return arch;
    }
    if (find_executable("nvidia-smi")) {
        ProcessOptions options;
        options.timeout = std::chrono::seconds(20);
        auto r = run_process({"nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"}, options);
        if (r.ok() && r->succeeded()) {
            auto arch = arch_from_compute_capability(r->stdout_text);
            if (arch.detected) return arch;
        }
    }
    return GpuArch{};
}

}  // namespace kp
