#include "cli/gpu_pool_option.h"

#include <cstdlib>

#include "eval/device_fault.h"
#include "gpu/gpu_selection.h"

namespace kp::cli {

namespace {

std::vector<GpuSlot> stand_in_slots(const gpu::GpuSelection& selection) {
    std::vector<GpuSlot> slots;
    if (selection.kind == gpu::GpuSelection::Kind::listed) {
        for (const auto& entry : selection.entries) {
            bool index = entry.find_first_not_of("0123456789") == std::string::npos;
            slots.push_back({index ? std::stoi(entry) : 0, index ? "" : entry, "stand-in worker", entry});
        }
        return slots;
    }
    int count = selection.kind == gpu::GpuSelection::Kind::all ? 1 : selection.first;
    for (int i = 0; i < count; ++i) slots.push_back({i, "", "stand-in worker", std::to_string(i)});
    return slots;
}

}  // namespace

void add_gpus_option(CLI::App& cmd, std::string& value) {
    cmd.add_option("--gpus", value,
                   "GPUs to evaluate on, one worker each: all, N (the first N), or indices and UUIDs such as 0,2 "
                   "(one index twice, 0,0, shares that GPU between two workers: for testing; their timings disturb each other). "
                   "Default: the first GPU")
        ->check(CLI::Validator(
            [](std::string& text) -> std::string {
                auto parsed = gpu::parse_gpu_selection(text);
                if (parsed.ok()) return {};
                // CLI11 puts "--gpus: " in front of the message already.
                std::string message = parsed.error().message;
                for (const char* prefix : {"--gpus: ", "--gpus "})
                    if (message.rfind(prefix, 0) == 0) return message.substr(std::string(prefix).size());
                return message;
            },
            "all|N|LIST"));
}

Result<std::unique_ptr<GpuPool>> make_gpu_pool(const std::string& text) {
    if (text.empty()) return std::make_unique<GpuPool>(std::vector<GpuSlot>{GpuSlot{}}, worker_health_check());
    auto selection = gpu::parse_gpu_selection(text);
    if (!selection.ok()) return selection.error();
    std::vector<GpuSlot> slots;
    if (const char* worker = std::getenv("KERNELPRO_WORKER"); worker && *worker) {
        slots = stand_in_slots(*selection);
    } else {
        auto chosen = gpu::select_gpus(*selection);
        if (!chosen.ok()) return chosen.error();
        slots = *chosen;
    }
    return std::make_unique<GpuPool>(std::move(slots), worker_health_check());
}

}  // namespace kp::cli
