#include "sandbox/sandbox_settings.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace kp::sandbox {

const std::vector<std::string>& layer_names() {
    static const std::vector<std::string> names{kNamespaces, kLandlock, kSeccomp, kRlimits};
    return names;
}

bool SandboxSettings::is_disabled(const std::string& layer) const {
    return std::find(disabled.begin(), disabled.end(), layer) != disabled.end() ||
           std::find(disabled.begin(), disabled.end(), "all") != disabled.end();
}

nlohmann::json to_json(const SandboxSettings& s) {
    return {{"disabled", s.disabled},     {"required", s.required},       {"scratch", s.scratch},
            {"read_paths", s.read_paths}, {"write_paths", s.write_paths}, {"max_file_bytes", s.max_file_bytes}};
}

SandboxSettings sandbox_settings_from_json(const nlohmann::json& j) {
    SandboxSettings s;
    if (!j.is_object()) return s;
    s.disabled = j.value("disabled", s.disabled);
    s.required = j.value("required", s.required);
    s.scratch = j.value("scratch", s.scratch);
    s.read_paths = j.value("read_paths", s.read_paths);
    s.write_paths = j.value("write_paths", s.write_paths);
    s.max_file_bytes = j.value("max_file_bytes", s.max_file_bytes);
    return s;
}

std::vector<std::string> disabled_layers_from_environment() {
    std::vector<std::string> layers;
    const char* value = std::getenv("KERNELPRO_SANDBOX_DISABLE");
    if (!value) return layers;
    std::stringstream list(value);
    for (std::string item; std::getline(list, item, ',');) {
        item.erase(0, item.find_first_not_of(" \t"));
        item.erase(item.find_last_not_of(" \t") + 1);
        if (!item.empty()) layers.push_back(item);
    }
    return layers;
}

}  // namespace kp::sandbox
