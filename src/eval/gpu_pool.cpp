#include "eval/gpu_pool.h"

#include <algorithm>

namespace kp {

namespace {

// One physical GPU: by UUID when the driver gives one, else by its pin or ordinal.
bool same_device(const GpuSlot& a, const GpuSlot& b) {
    if (!a.uuid.empty() || !b.uuid.empty()) return a.uuid == b.uuid;
    if (!a.pin.empty() || !b.pin.empty()) return a.pin == b.pin;
    return a.index == b.index;
}

// How many GPUs the slots are on.
int distinct_devices(const std::vector<GpuSlot>& slots) {
    int n = 0;
    for (size_t i = 0; i < slots.size(); ++i) {
        bool seen = false;
        for (size_t j = 0; j < i; ++j) seen = seen || same_device(slots[i], slots[j]);
        n += !seen;
    }
    return n;
}

std::vector<GpuSlot> at_least_one(std::vector<GpuSlot> slots) {
    if (slots.empty()) slots.push_back(GpuSlot{});
    return slots;
}

}  // namespace

GpuPool::GpuPool(std::vector<GpuSlot> slots, HealthCheck check)
    : slots_(at_least_one(std::move(slots))), check_(std::move(check)),
      meter_(static_cast<int>(slots_.size()), distinct_devices(slots_)) {
    busy_.assign(slots_.size(), false);
    retired_flags_.assign(slots_.size(), false);
}

std::vector<RetiredSlot> GpuPool::retired() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return retired_;
}

Status GpuPool::run(const Job& job, bool evaluation) {
    for (;;) {
        size_t slot = 0;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            const unsigned long ticket = next_ticket_++;
            waiting_.push_back(ticket);
            auto all_retired = [&] { return std::all_of(retired_flags_.begin(), retired_flags_.end(), [](bool r) { return r; }); };
            // Slots that share a GPU take turns: a timing never shares its device with another
            // slot's work (a kernel of the other worker would run inside its timed window).
            auto device_busy = [&](size_t i) {
                for (size_t j = 0; j < slots_.size(); ++j)
                    if (busy_[j] && same_device(slots_[i], slots_[j])) return true;
                return false;
            };
            auto free_slot = [&]() -> std::optional<size_t> {
                for (size_t i = 0; i < slots_.size(); ++i)
                    if (!busy_[i] && !retired_flags_[i] && !device_busy(i)) return i;
                return std::nullopt;
            };
            changed_.wait(lock, [&] { return all_retired() || (waiting_.front() == ticket && free_slot()); });
            waiting_.erase(std::find(waiting_.begin(), waiting_.end(), ticket));
            if (all_retired()) {
                changed_.notify_all();
                std::string reasons;
                for (const auto& r : retired_) reasons += (reasons.empty() ? "" : "; ") + r.device.label() + ": " + r.reason;
                return make_error("every GPU of the pool failed (" + reasons + ")");
            }
            slot = *free_slot();
            busy_[slot] = true;
            changed_.notify_all();  // the next in line may take another free slot
        }
        const double start = meter_now();
        SlotVerdict verdict = job(static_cast<int>(slot), slots_[slot]);
        std::string failed;
        if (verdict.device_suspect) {
            if (!check_) failed = verdict.reason;
            else if (auto healthy = check_(slots_[slot]); !healthy)
                failed = healthy.error().message == verdict.reason ? verdict.reason
                                                                    : verdict.reason + " (check: " + healthy.error().message + ")";
        }
        meter_.note_busy(static_cast<int>(slot), {start, meter_now()}, evaluation && failed.empty());
        std::lock_guard<std::mutex> lock(mutex_);
        busy_[slot] = false;
        if (!failed.empty()) {
            retired_flags_[slot] = true;
            retired_.push_back({static_cast<int>(slot), slots_[slot], failed});
        }
        changed_.notify_all();
        if (failed.empty()) return {};
        // Given back: the job queues again, behind whoever arrived while it ran.
    }
}

std::string GpuPool::summary_markdown() const {
    std::string text = "Throughput: " + meter_.figures().summary() + ".\n";
    for (const auto& r : retired()) text += "\nRetired: " + r.device.label() + ": " + r.reason + "\n";
    return text;
}

nlohmann::json GpuPool::to_json() const {
    nlohmann::json gpus = nlohmann::json::array(), retired = nlohmann::json::array();
    for (const auto& s : slots_) gpus.push_back(s.to_json());
    for (const auto& r : this->retired()) retired.push_back({{"slot", r.slot}, {"device", r.device.to_json()}, {"reason", r.reason}});
    return {{"gpus", gpus}, {"retired", retired}, {"throughput", meter_.figures().to_json()}};
}

}  // namespace kp
