#include "build/cutlass_install.h"

#include <cstdlib>
#include <mutex>
#include <regex>

#include "common/files.h"
#include "common/process.h"
#include "common/python_interpreter.h"
#include "common/tool_locator.h"
#include "common/utf8.h"

namespace kp {

namespace fs = std::filesystem;

namespace {

constexpr const char* kVariable = "KERNELPRO_CUTLASS_DIR";
constexpr const char* kHowToInstall =
    "install the headers with scripts/setup or `python3 -m pip install --no-deps nvidia-cutlass`, or name a CUTLASS "
    "checkout with --cutlass-dir / KERNELPRO_CUTLASS_DIR";

bool is_file(const fs::path& path) {
    std::error_code ec;
    return fs::is_regular_file(path, ec);
}

// Where pip put the nvidia-cutlass wheel's cutlass_library package (its headers are in source/),
// asked of Python without importing the package (its imports need more than the headers do).
std::optional<fs::path> wheel_package_folder() {
    auto python = python_executable();
    if (!python.ok()) return std::nullopt;
    ProcessOptions options;
    options.timeout = std::chrono::seconds(30);
    auto run = run_process({*python, "-c",
                            "import importlib.util as u; s = u.find_spec('cutlass_library'); "
                            "print(s.submodule_search_locations[0] if s and s.submodule_search_locations else '')"},
                           options);
    if (!run.ok() || !run->succeeded()) return std::nullopt;
    std::string folder = run->stdout_text;
    while (!folder.empty() && (folder.back() == '\n' || folder.back() == '\r')) folder.pop_back();
    if (folder.empty()) return std::nullopt;
    return fs::path(folder);
}

// The directory nvcc links libcuda's stub from (the real driver library replaces it at run time).
std::optional<fs::path> cuda_driver_stub_folder() {
    auto nvcc = locate_nvidia_tool("nvcc");
    if (!nvcc) return std::nullopt;
    std::error_code ec;
    fs::path toolkit = fs::weakly_canonical(*nvcc, ec).parent_path().parent_path();
    for (const char* below : {"lib64/stubs", "lib/stubs", "targets/x86_64-linux/lib/stubs", "targets/sbsa-linux/lib/stubs"})
        if (is_file(toolkit / below / "libcuda.so")) return toolkit / below;
    return std::nullopt;
}

}  // namespace

std::vector<fs::path> CutlassInstall::include_directories() const {
    std::vector<fs::path> folders{root / "include"};
    std::error_code ec;
    if (fs::is_directory(root / "tools" / "util" / "include", ec)) folders.push_back(root / "tools" / "util" / "include");
    return folders;
}

Result<std::string> parse_cutlass_version(const std::string& version_header) {
    std::string parts[3];
    const char* names[3] = {"CUTLASS_MAJOR", "CUTLASS_MINOR", "CUTLASS_PATCH"};
    for (int i = 0; i < 3; ++i) {
        std::smatch m;
        if (!std::regex_search(version_header, m, std::regex(std::string("#define\\s+") + names[i] + "\\s+(\\d+)")))
            return make_error(std::string("cutlass/version.h does not define ") + names[i]);
        parts[i] = m[1].str();
    }
    return parts[0] + "." + parts[1] + "." + parts[2];
}

Result<CutlassInstall> cutlass_install_at(const fs::path& folder) {
    for (const fs::path& root : {folder, folder / "source"}) {
        fs::path header = root / "include" / "cutlass" / "version.h";
        if (!is_file(header)) continue;
        auto text = read_text_file(header);
        if (!text.ok()) return text.error();
        auto version = parse_cutlass_version(*text);
        if (!version.ok()) return make_error(path_text(header) + ": " + version.error().message);
        if (!is_file(root / "include" / "cute" / "tensor.hpp"))
            return make_error(path_text(root) + " holds CUTLASS " + *version + " without CuTe (include/cute/tensor.hpp)");
        return CutlassInstall{root, *version, ""};
    }
    return make_error(path_text(folder) + " holds no include/cutlass/version.h (nor source/include/cutlass/version.h)");
}

Result<CutlassInstall> locate_cutlass(const fs::path& explicit_folder) {
    if (!explicit_folder.empty()) {
        auto found = cutlass_install_at(explicit_folder);
        if (found.ok()) found->found_by = "--cutlass-dir";
        return found;
    }
    if (const char* named = std::getenv(kVariable); named && *named) {
        auto found = cutlass_install_at(named);
        if (!found.ok()) return make_error(std::string(kVariable) + ": " + found.error().message);
        found->found_by = kVariable;
        return found;
    }
    // Python is asked once per process; the answer does not change while kernelpro runs.
    static std::once_flag once;
    static std::optional<fs::path> wheel;
    std::call_once(once, [] { wheel = wheel_package_folder(); });
    std::vector<std::string> looked;
    if (wheel) {
        if (auto found = cutlass_install_at(*wheel); found.ok()) {
            found->found_by = "python package nvidia-cutlass";
            return found;
        }
        looked.push_back(path_text(*wheel));
    } else {
        looked.push_back("python package cutlass_library (not installed)");
    }
    for (const char* fixed : {"/usr/local/cutlass", "/opt/cutlass"}) {
        if (auto found = cutlass_install_at(fixed); found.ok()) {
            found->found_by = "fixed path";
            return found;
        }
        looked.push_back(fixed);
    }
    std::string places;
    for (const auto& p : looked) places += (places.empty() ? "" : ", ") + p;
    return make_error("CUTLASS headers not found (looked at " + std::string(kVariable) + " (unset), " + places + "): " + kHowToInstall);
}

std::vector<std::string> cutlass_nvcc_flags(const CutlassInstall& install) {
    std::vector<std::string> flags;
    for (const auto& folder : install.include_directories()) {
        flags.push_back("-I");
        flags.push_back(folder.string());
    }
    flags.push_back("--expt-relaxed-constexpr");
    flags.push_back("-DCUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL=1");
    if (auto stubs = cuda_driver_stub_folder()) flags.push_back("-L" + stubs->string());
    flags.push_back("-lcuda");
    return flags;
}

}  // namespace kp
