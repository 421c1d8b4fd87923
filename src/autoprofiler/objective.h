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
    double tuner_speedup = 0;  // tuner_outcome: geometric mean over the kernels with a table
    int tuned = 0;             // ... how many had one
};

// Fills kernels and the mean seconds and passes of the outcomes; returns the mean cost as a share
// of the budget (passes when the budget is in passes, else seconds), which objectives charge.
double add_costs(Score& score, const std::vector<TreeOutcome>& outcomes, const Budget& budget);

class Objective {
public:
    virtual ~Objective() = default;
    virtual std::string name() const = 0;
    virtual Score score(const std::vector<KernelRecord>& kernels, const std::vector<TreeOutcome>& outcomes, const Budget& budget) const = 0;
};

// A flawed kernel is a hit when the shown findings include its expected tool's; a healthy one
// when nothing shown claims more than its max_gain. value = hit rate - cost_weight x mean cost
// as a share of the budget (passes when the budget is in passes, else seconds): between two trees
// that diagnose as well, the cheaper wins.
bool is_hit(const KernelRecord& kernel, const TreeOutcome& outcome);
std::unique_ptr<Objective> diagnosis_hit_rate(double cost_weight = 0.05);

}  // namespace kp::autoprofiler
