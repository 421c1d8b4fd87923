#include "sandbox/sandbox_report.h"

#include <algorithm>

namespace kp::sandbox {

const char* layer_state_name(LayerState state) {
    switch (state) {
        case LayerState::active: return "active";
        case LayerState::disabled: return "disabled";
        case LayerState::unavailable: return "unavailable";
    }
    return "unavailable";
}

bool SandboxReport::complete() const {
    return !layers.empty() &&
           std::all_of(layers.begin(), layers.end(), [](const LayerStatus& l) { return l.state == LayerState::active; });
}

const LayerStatus* SandboxReport::find(const std::string& name) const {
    for (const auto& l : layers)
        if (l.name == name) return &l;
    return nullptr;
}

void SandboxReport::set(LayerStatus status) {
    for (auto& l : layers)
        if (l.name == status.name) {
            l = std::move(status);
            return;
        }
    layers.push_back(std::move(status));
}

std::string SandboxReport::missing() const {
    std::string out;
    for (const auto& l : layers) {
        if (l.state == LayerState::active) continue;
        if (!out.empty()) out += "; ";
        out += l.name + " (" + layer_state_name(l.state) + ": " + l.detail + ")";
    }
    return out;
}

std::string SandboxReport::summary() const {
    if (layers.empty()) return "not reported";
    std::string active;
    for (const auto& l : layers)
        if (l.state == LayerState::active) active += (active.empty() ? "" : ", ") + l.name;
    if (complete()) return active;
    return (active.empty() ? std::string("no layer active") : active) + "; missing: " + missing();
}

nlohmann::json SandboxReport::to_json() const {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& l : layers) list.push_back({{"name", l.name}, {"state", layer_state_name(l.state)}, {"detail", l.detail}});
    return {{"complete", complete()}, {"layers", list}};
}

SandboxReport SandboxReport::from_json(const nlohmann::json& j) {
    SandboxReport report;
    if (!j.is_object() || !j.contains("layers") || !j["layers"].is_array()) return report;
    for (const auto& l : j["layers"]) {
        if (!l.is_object()) continue;
        std::string state = l.value("state", "");
        report.layers.push_back({l.value("name", ""),
                                 state == "active" ? LayerState::active
                                 : state == "disabled" ? LayerState::disabled
                                                       : LayerState::unavailable,
                                 l.value("detail", "")});
    }
    return report;
}

}  // namespace kp::sandbox
