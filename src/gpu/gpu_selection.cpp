#include "gpu/gpu_selection.h"

#include <algorithm>
#include <cctype>

#include "gpu/cuda_driver.h"

namespace kp::gpu {

namespace {

bool all_digits(const std::string& text) {
    return !text.empty() && text.size() <= 6 && std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
}

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    return text;
}

bool looks_like_uuid(const std::string& text) {
    const std::string t = lower(text);
    if (t.rfind("gpu-", 0) != 0 || t.size() < 8) return false;
    return std::all_of(t.begin() + 4, t.end(), [](unsigned char c) { return std::isxdigit(c) || c == '-'; });
}

SelectedGpu selected(const DeviceInfo& device) {
    return {device.ordinal, device.uuid, device.name, device.uuid.empty() ? std::to_string(device.ordinal) : device.uuid};
}

std::string count_text(size_t n) { return std::to_string(n) + (n == 1 ? " GPU" : " GPUs"); }

}  // namespace

nlohmann::json SelectedGpu::to_json() const { return {{"index", index}, {"uuid", uuid}, {"name", name}}; }

std::string SelectedGpu::label() const {
    std::string detail = name;
    if (!uuid.empty()) detail += (detail.empty() ? "" : ", ") + uuid;
    return "GPU " + std::to_string(index) + (detail.empty() ? "" : " (" + detail + ")");
}

Result<GpuSelection> parse_gpu_selection(const std::string& text) {
    GpuSelection s;
    s.text = text;
    const std::string usage = "--gpus takes all, a count N, or a list of GPU indices and UUIDs such as 0,2; got '" + text + "'";
    if (lower(text) == "all") {
        s.kind = GpuSelection::Kind::all;
        return s;
    }
    if (all_digits(text)) {
        s.first = std::stoi(text);
        if (s.first < 1) return make_error("--gpus: a count of at least 1, got '" + text + "'");
        return s;
    }
    s.kind = GpuSelection::Kind::listed;
    size_t start = 0;
    while (true) {
        size_t comma = text.find(',', start);
        std::string entry = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (!all_digits(entry) && !looks_like_uuid(entry)) return make_error(usage);
        s.entries.push_back(entry);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return s;
}

Result<std::vector<SelectedGpu>> resolve_gpu_selection(const GpuSelection& selection, const std::vector<DeviceInfo>& present) {
    if (present.empty()) return make_error("no GPU: the driver reports no CUDA devices");
    std::vector<SelectedGpu> chosen;
    if (selection.kind == GpuSelection::Kind::all) {
        for (const auto& d : present) chosen.push_back(selected(d));
        return chosen;
    }
    if (selection.kind == GpuSelection::Kind::first) {
        if (static_cast<size_t>(selection.first) > present.size())
            return make_error("--gpus " + selection.text + ": this machine has " + count_text(present.size()));
        for (int i = 0; i < selection.first; ++i) chosen.push_back(selected(present[static_cast<size_t>(i)]));
        return chosen;
    }
    for (const auto& entry : selection.entries) {
        if (all_digits(entry)) {
            size_t index = std::stoul(entry);
            if (index >= present.size())
                return make_error("--gpus " + selection.text + ": there is no GPU " + entry + " (this machine has " +
                                  count_text(present.size()) + ", 0 to " + std::to_string(present.size() - 1) + ")");
            chosen.push_back(selected(present[index]));
            continue;
        }
        std::vector<const DeviceInfo*> matches;
        for (const auto& d : present)
            if (!d.uuid.empty() && lower(d.uuid).rfind(lower(entry), 0) == 0) matches.push_back(&d);
        if (matches.size() != 1)
            return make_error("--gpus " + selection.text + ": " + (matches.empty() ? "no GPU of this machine has the UUID "
                                                                                  : "more than one GPU's UUID starts with ") +
                              entry);
        chosen.push_back(selected(*matches.front()));
    }
    return chosen;
}

Result<std::vector<SelectedGpu>> select_gpus(const GpuSelection& selection) {
    auto driver = CudaDriver::load();
    if (!driver) return driver.error();
    auto devices = driver->all_devices();
    if (!devices) return make_error("no GPU: " + devices.error().message);
    return resolve_gpu_selection(selection, *devices);
}

}  // namespace kp::gpu
