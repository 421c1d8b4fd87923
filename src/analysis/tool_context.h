// What a tool sees: the profile data, the stage-1 roofline result, and derived quantities several
// tools share (how busy memory is, stall shares, where the uncoalesced traffic went).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/finding.h"
#include "analysis/metric_reader.h"
#include "analysis/profile_data.h"
#include "analysis/roofline.h"

namespace kp::analysis {

class ToolContext {
public:
    ToolContext(const ProfileData& data, const RooflineResult& roofline);

    const ProfileData& data() const { return data_; }
    const RooflineResult& roofline() const { return roofline_; }
    const MetricReader& metrics() const { return metrics_; }

    // Fraction of the kernel's time the memory system is the limiter, approximated by the busiest
    // memory level's speed-of-light fraction (clamped to 0..1).
    double memory_busy() const;
    // A warp-stall reason's share of all cycles between issues (stall / CPI), from
    // smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio; nullopt if absent.
    std::optional<double> stall_share(std::string_view reason) const;

    // A math pipe's utilization (0..1) for pipe "fma", "alu", "fp64", "xu" or "lsu", from the
    // instruction-issue counter sm__inst_executed_pipe_<pipe> (it shares replay passes with the
    // other issue counters; sm__pipe_<pipe>_cycles_active, read when a recording has it instead,
    // cost 2 more passes on the H200); nullopt if absent.
    std::optional<double> pipe_utilization(std::string_view pipe) const;
    static std::string pipe_metric(std::string_view pipe);

    // Threads that executed an instruction kind ("ffma", "dadd", ...) with the predicate on, from
    // sm__ (live runs) or smsp__ (the full set's raw page) sass_thread_inst_executed_op_<op>_pred_on.
    std::optional<double> thread_instructions(std::string_view op) const;

    // Global-memory sector accounting from L1 (sectors moved vs. used).
    struct SectorUse {
        double load_sectors = 0, store_sectors = 0, local_sectors = 0;
        double excess_load_sectors = 0, excess_store_sectors = 0;  // fetched but not used
        double load_bytes_per_sector = 32, store_bytes_per_sector = 32;
        bool known = false;
    };
    SectorUse sector_use() const;

    // The kernel's SASS instructions matching a predicate, as evidence (offset, text, file:line),
    // at most `limit` of them.
    template <typename Predicate>
    std::vector<Evidence> sass_evidence(Predicate matches, size_t limit = 3) const;
    // "kernels.cu:14": the line of the matching instructions that drew the most PC samples (the one
    // a finding's summary should name), else the first matching instruction's line; "" when none.
    template <typename Predicate>
    std::string culprit_source_line(Predicate matches) const;

private:
    const ProfileData& data_;
    const RooflineResult& roofline_;
    MetricReader metrics_;
};

Evidence instruction_evidence(const profile::SassInstruction& instruction);

template <typename Predicate>
std::vector<Evidence> ToolContext::sass_evidence(Predicate matches, size_t limit) const {
    std::vector<Evidence> out;
    if (!data_.sass_function) return out;
    for (const auto& instruction : data_.sass_function->instructions) {
        if (out.size() >= limit) break;
        if (matches(instruction)) out.push_back(instruction_evidence(instruction));
    }
    return out;
}

template <typename Predicate>
std::string ToolContext::culprit_source_line(Predicate matches) const {
    if (!data_.sass_function) return "";
    const profile::SourceLocation* first = nullptr;
    const profile::SourceLocation* hottest = nullptr;
    std::uint64_t most = 0;
    for (const auto& instruction : data_.sass_function->instructions) {
        if (!matches(instruction) || !instruction.location) continue;
        const auto& where = *instruction.location;
        if (!first) first = &where;
        if (!data_.line_samples) continue;
        for (const auto& line : data_.line_samples->lines)
            if (line.location.line == where.line && line.location.file == where.file && line.samples > most) {
                most = line.samples;
                hottest = &where;
            }
    }
    const profile::SourceLocation* pick = hottest ? hottest : first;
    return pick ? pick->file + ":" + std::to_string(pick->line) : "";
}


}  // namespace kp::analysis
