// What the sandbox around candidate code actually was: one status per layer, with what it did or
// why it is missing. The worker sends it before loading candidate code; `doctor`, `eval` and the
// run report show it, and --require-sandbox refuses to evaluate unless every layer is active.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kp::sandbox {

enum class LayerState {
    active,       // applied
    disabled,     // turned off on purpose (KERNELPRO_SANDBOX_DISABLE, or a mode that cannot have it)
    unavailable,  // this kernel or host cannot provide it
};

const char* layer_state_name(LayerState state);

struct LayerStatus {
    std::string name;
    LayerState state = LayerState::unavailable;
    std::string detail;  // what it does when active; why not otherwise
};

struct SandboxReport {
    std::vector<LayerStatus> layers;

    bool complete() const;  // every layer active
    const LayerStatus* find(const std::string& name) const;
    void set(LayerStatus status);  // replaces the layer of the same name, or appends
    // "namespaces, landlock, seccomp, rlimits" / "seccomp, rlimits; missing: landlock (why)".
    std::string summary() const;
    // "landlock (unavailable: ...); namespaces (disabled: ...)" for the layers that are not active.
    std::string missing() const;

    nlohmann::json to_json() const;
    static SandboxReport from_json(const nlohmann::json& j);
};

}  // namespace kp::sandbox
