#include "profile/pc_samples.h"

#include <algorithm>
#include <unordered_map>

#include <nlohmann/json.hpp>

namespace kp::profile {

std::uint64_t PcSample::samples() const {
    std::uint64_t n = 0;
    for (const auto& [reason, count] : stalls) n += count;
    return n;
}

std::string stall_reason_name(const std::string& cupti_name) {
    for (const char* prefix : {"smsp__pcsamp_warps_issue_stalled_", "smsp__pcsamp_"})
        if (cupti_name.rfind(prefix, 0) == 0) return cupti_name.substr(std::string(prefix).size());
    return cupti_name;
}

Result<PcSampling> pc_sampling_from_json(const nlohmann::json& j) {
    if (!j.is_object() || !j.contains("pcs") || !j["pcs"].is_array()) return make_error("PC sampling: no \"pcs\" list");
    try {
        PcSampling out;
        out.total_samples = j.value("total_samples", std::uint64_t{0});
        out.dropped_samples = j.value("dropped_samples", std::uint64_t{0});
        out.sampling_period = j.value("sampling_period", 0);
        for (const auto& pc : j["pcs"]) {
            PcSample s;
            s.function = pc.at("function").get<std::string>();
            s.pc_offset = pc.at("pc_offset").get<std::uint64_t>();
            for (const auto& [reason, count] : pc.at("stalls").items()) s.stalls[stall_reason_name(reason)] += count.get<std::uint64_t>();
            out.samples.push_back(std::move(s));
        }
        return out;
    } catch (const nlohmann::json::exception& e) {
        return make_error(std::string("PC sampling: malformed record: ") + e.what());
    }
}

namespace {

// A warp waiting at a barrier is sampled past the BAR (or MEMBAR): BAR.SYNC.DEFER_BLOCKING lets it
// issue on until an instruction must wait, so the sample sits one to a few instructions later
// (measured on the H200: every barrier-stall sample of a loop of __syncthreads() sat one or two
// instructions past a BAR). Those waits are the barrier's cost, so they count on its line.
constexpr size_t kBarrierReach = 4;  // instructions back from the sampled one

const SassInstruction* waited_on(std::string_view reason, const std::vector<SassInstruction>& code, size_t at) {
    const std::string_view wanted = reason == "barrier" ? "BAR" : reason == "membar" ? "MEMBAR" : "";
    if (wanted.empty()) return nullptr;
    for (size_t back = 1; back <= kBarrierReach && back <= at; ++back)
        if (code[at - back].base_opcode() == wanted) return code[at - back].location ? &code[at - back] : nullptr;
    return nullptr;
}

}  // namespace

KernelLineSamples samples_by_line(const PcSampling& sampling, const SassFunction& function) {
    // Instruction offsets in nvdisasm's listing are section-relative; CUPTI's from the function start.
    std::unordered_map<std::uint64_t, size_t> by_offset;  // -> index in function.instructions
    for (size_t i = 0; i < function.instructions.size(); ++i) by_offset[function.instructions[i].offset - function.start] = i;

    KernelLineSamples out;
    std::map<std::pair<std::string, int>, size_t> line_index;
    std::vector<std::map<std::uint64_t, std::uint64_t>> hot;  // per line: offset -> samples
    auto line_of = [&](const SourceLocation& where) -> size_t {
        auto [it, inserted] = line_index.try_emplace({where.file, where.line}, out.lines.size());
        if (inserted) {
            out.lines.push_back({where, 0, {}, {}});
            hot.emplace_back();
        }
        return it->second;
    };
    for (const PcSample& s : sampling.samples) {
        if (s.function != function.name) continue;
        const std::uint64_t n = s.samples();
        out.samples += n;
        auto found = by_offset.find(s.pc_offset);
        if (found == by_offset.end() || !function.instructions[found->second].location) {
            out.without_line += n;
            continue;
        }
        for (const auto& [reason, count] : s.stalls) {
            const SassInstruction* barrier = waited_on(reason, function.instructions, found->second);
            const SassInstruction* at = barrier ? barrier : &function.instructions[found->second];
            const size_t index = line_of(*at->location);
            out.lines[index].samples += count;
            out.lines[index].stalls[reason] += count;
            hot[index][at->offset - function.start] += count;
        }
    }
    for (size_t i = 0; i < out.lines.size(); ++i) {
        std::vector<std::pair<std::uint64_t, std::uint64_t>> h;  // (samples, offset), hottest first
        for (const auto& [offset, n] : hot[i]) h.push_back({n, offset});
        std::stable_sort(h.begin(), h.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
        for (const auto& [n, offset] : h) out.lines[i].offsets.push_back(offset);
    }
    std::vector<size_t> order(out.lines.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return out.lines[a].samples > out.lines[b].samples; });
    std::vector<LineSamples> sorted;
    for (size_t i : order) sorted.push_back(std::move(out.lines[i]));
    out.lines = std::move(sorted);
    return out;
}

}  // namespace kp::profile
