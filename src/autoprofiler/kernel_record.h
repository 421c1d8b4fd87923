// What the tree is evaluated on: one kernel's signals and every tool's findings, from one full
// profile (every tool, whatever the class) of recorded counters, plus its label for the objective.
// A leaf's feedback is that profile's findings restricted to the tools the leaf runs: the tools
// judge independently, so restricting afterwards gives what running only them would.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "analysis/diagnosis.h"
#include "diagnose/profile_report.h"
#include "common/result.h"

namespace kp {
struct TaskSpec;
class CandidateBuilder;
}  // namespace kp

namespace kp::autoprofiler {

struct TuningTable;  // tuning_record.h

struct KernelRecord {
    std::string name;                    // the corpus kernel's file stem
    std::string expect = "none";         // the tool that names its real flaw; "none": healthy
    double max_gain = 0.15;              // a healthy kernel's feedback stays below this
    std::vector<int> lines;              // the source lines to change (the manifest's `lines`); empty: not labelled
    std::map<std::string, double> signals;  // signal_catalogue() names; absent: unknown
    analysis::Diagnosis diagnosis;       // every tool's findings (the pipeline's 5% floor, at most 8), by gain
    std::shared_ptr<const TuningTable> tuning;  // a tuning kernel's timed space (tuner_outcome); else null
};

struct CorpusOptions {
    std::filesystem::path corpus;        // holds manifest.toml, the task folder and the .cu files
    std::filesystem::path recordings;    // <kernel>.counters.json (and ceilings.json)
    std::vector<std::string> only;       // non-empty: these kernels (file stems)
};

// A manifest file (the corpus's, the tuning kernels'), its syntax errors as "FILE:LINE: what".
Result<toml::table> read_manifest(const std::filesystem::path& path);

// Builds every manifest kernel, replays its recorded counters and diagnoses it with every tool.
// Needs nvcc and the SASS tools (not a GPU).
Result<std::vector<KernelRecord>> load_corpus_records(const CorpusOptions& options);

// Builds one kernel (at `parameters`), replays its recorded counters reply against `ceilings` and
// diagnoses it with every tool: the record's diagnosis and signals (name and label left to the caller).
Result<KernelRecord> replay_recorded_kernel(const TaskSpec& task, CandidateBuilder& builder, const std::filesystem::path& source,
                                            const std::map<std::string, std::string>& parameters,
                                            const std::filesystem::path& counters_reply, const std::filesystem::path& ceilings);

// The signals of one kernel of a profile report (its roofline when counted, its SASS mix, the
// task's facts) plus the launch facts of the counters reply.
std::map<std::string, double> signals_of(const diagnose::KernelDiagnosis& kernel, const std::filesystem::path& counters_reply);

// The record a tree is walked on for one kernel of a live profile: named by its function, with
// its diagnosis and signals_of.
KernelRecord record_of(const diagnose::KernelDiagnosis& kernel, const std::filesystem::path& counters_reply);

// Deterministic train / held-out split: every `every`-th kernel in manifest order is held out.
void split_records(const std::vector<KernelRecord>& all, int every, std::vector<KernelRecord>& train, std::vector<KernelRecord>& held_out);

}  // namespace kp::autoprofiler
