// What the learner maximises, pluggable: an Objective scores a tree's outcomes on a set of
// kernels. Built in: diagnosis_hit_rate (the labelled corpus) and tuner_outcome (tuner_outcome.h:
// the tuner's result given the feedback, on recorded tuning tables), both without a GPU.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "autoprofiler/kernel_record.h"
#include "autoprofiler/tree_evaluation.h"

namespace kp::autoprofiler {

struct Score {
    double value = 0;          // higher is better; what the learner compares
    double hit_rate = 0;       // share of kernels diagnosed right
    double mean_seconds = 0, mean_passes = 0;
    int hits = 0, kernels = 0;
    int line_hits = 0, lined = 0;  // flawed kernels with labelled lines: how many of them the feedback quotes a line to change of
    double tuner_speedup = 0;  // tuner_outcome: geometric mean over the kernels with a table
    int tuned = 0;             // ... how many had one
    int rewritten = 0;         // single_shot_rewrite: rewrites that were correct
    std::string error;         // set when the objective could not score (its judge failed): the caller stops
};

// Fills kernels and the mean seconds and passes of the outcomes; returns the mean cost as a share
// of the budget (passes when the budget is in passes, else seconds), which objectives charge.
double add_costs(Score& score, const std::vector<TreeOutcome>& outcomes, const Budget& budget);

class Objective {
public:
    virtual ~Objective() = default;
    virtual std::string name() const = 0;
    virtual Score score(const std::vector<KernelRecord>& kernels, const std::vector<TreeOutcome>& outcomes, const Budget& budget) const = 0;
    // Whether score() reads the outcomes' feedback text (the walks must render it).
    virtual bool reads_feedback() const { return false; }
};

// A flawed kernel is a hit when the shown findings include its expected tool's; a healthy one
// when nothing shown claims more than its max_gain. A line hit: the expected tool's finding is
// shown and its evidence quotes one of the kernel's labelled lines (KernelRecord::lines). value =
// hit rate + line_weight x line-hit rate (over the labelled kernels) - cost_weight x mean cost as
// a share of the budget (passes when the budget is in passes, else seconds): between two trees
// that diagnose as well, the one that says where, then the cheaper, wins.
bool is_hit(const KernelRecord& kernel, const TreeOutcome& outcome);
bool has_labelled_lines(const KernelRecord& kernel);  // a flawed kernel whose lines to change are known
bool is_line_hit(const KernelRecord& kernel, const TreeOutcome& outcome);
std::unique_ptr<Objective> diagnosis_hit_rate(double cost_weight = 0.05, double line_weight = 0.1);

}  // namespace kp::autoprofiler
