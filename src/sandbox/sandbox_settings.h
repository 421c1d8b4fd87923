// What the orchestrator asks of the sandbox around candidate code (part of the worker request):
// which layers to leave off, whether a missing layer must stop the evaluation, the one folder the
// candidate may write to, and any extra folders the trusted code reads at run time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kp::sandbox {

// The layers, in the order the worker applies them.
inline constexpr const char* kNamespaces = "namespaces";  // own pid, network, ipc and mount namespaces
inline constexpr const char* kLandlock = "landlock";      // the filesystem view, TCP, signals
inline constexpr const char* kSeccomp = "seccomp";        // system calls
inline constexpr const char* kRlimits = "rlimits";        // core files, file size, open files
const std::vector<std::string>& layer_names();

struct SandboxSettings {
    std::vector<std::string> disabled;    // layers turned off on purpose (KERNELPRO_SANDBOX_DISABLE)
    bool required = false;                // refuse to run candidate code unless every layer is active
    std::string scratch;                  // the only folder candidate code may write to ("" = none)
    std::vector<std::string> read_paths;  // extra folders or files trusted code reads at run time
    std::vector<std::string> write_paths; // extra writable folders (a profiler's output)
    std::int64_t max_file_bytes = 256ll << 20;  // RLIMIT_FSIZE

    bool is_disabled(const std::string& layer) const;
};

nlohmann::json to_json(const SandboxSettings& settings);
SandboxSettings sandbox_settings_from_json(const nlohmann::json& j);

// KERNELPRO_SANDBOX_DISABLE: a comma-separated list of layer names, or "all". Unknown names are
// returned too (the worker reports them), so a typo is visible rather than silently ignored.
std::vector<std::string> disabled_layers_from_environment();

}  // namespace kp::sandbox
