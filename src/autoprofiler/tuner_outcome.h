// The tuner-outcome objective (issue 13 §3b, measurable with no LLM): what the built-in tuner
// (search/proposers/tuner_proposer.h) reaches in a fixed number of evaluations when the tree's
// feedback on the start kernel is what it was told. Profile once, then tune: the start node carries
// the findings the tree showed, as a profiled evaluation would; every point the tuner proposes is
// looked up in the kernel's recorded table (TuningTable: the exhaustive run's evaluation there,
// with its compiler facts and roofline class, no findings), so the result is deterministic and
// needs no GPU. A point the table lacks counts as a failed evaluation. Search memory is off.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "analysis/finding.h"
#include "autoprofiler/objective.h"

namespace kp::autoprofiler {

struct TunerRun {
    double start_seconds = 0, best_seconds = 0;
    int evaluations = 0;                // points evaluated after the start
    std::string best_point;             // point_text of the fastest correct point
    std::vector<std::string> tried;     // point_text, in evaluation order
    double speedup() const { return best_seconds > 0 ? start_seconds / best_seconds : 1.0; }
};

// The greedy search the tuner drives: each round asks the tuner for moves from the fastest node
// that still has proposals (its ancestors as lineage), until `evaluations` points are evaluated or
// no node has a proposal left. Without a table, or a correct timing of its start, nothing runs
// (speedup 1).
TunerRun simulate_tuner(const KernelRecord& kernel, const std::vector<analysis::Finding>& shown, int evaluations);

// value = log2 of the geometric-mean speedup over the kernels with a table, minus cost_weight x
// mean cost as a share of the budget (as diagnosis_hit_rate charges it). Kernels without a table
// are not scored.
std::unique_ptr<Objective> tuner_outcome(int evaluations = 4, double cost_weight = 0.05);

}  // namespace kp::autoprofiler
