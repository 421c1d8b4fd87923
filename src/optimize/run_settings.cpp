#include "optimize/run_settings.h"

#include "common/files.h"
#include "common/hash.h"

namespace kp::optimize {

std::string task_fingerprint(const TaskSpec& task) {
    Sha256 hash;
    auto toml = read_text_file(task.toml_path);
    hash.add(toml.ok() ? *toml : task.name);
    if (task.reference.source) {
        auto reference = read_text_file(*task.reference.source);
        hash.add(reference.ok() ? *reference : task.reference.source->string());
    }
    return hash.hex();
}

EvaluationOptions search_evaluation_options(int trials, double max_seconds, double min_seconds) {
    EvaluationOptions options;
    options.trials = trials;
    options.timing.stopping.max_seconds = max_seconds;
    options.timing.stopping.min_seconds = min_seconds;
    return options;
}

EnergyConfig search_energy_config(bool enabled, int windows) {
    EnergyConfig energy;
    energy.enabled = enabled;
    energy.windows = windows;
    energy.measure_baseline = false;
    return energy;
}

}  // namespace kp::optimize
