// The profiling corpus's manifest (tests/profile_corpus/manifest.toml) as the recorded-corpus
// tests read it: each kernel's file, the tool expected first ("none" for a healthy kernel), the
// largest gain a healthy kernel may draw, whether recorded counters can judge it, and the lines to change.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "profile_fixture.h"

namespace kp::testing {

struct CorpusKernel {
    std::string file, expect;
    double max_gain = 0.15;
    bool replayable = true;  // false: ncu's recorded page cannot judge it (no timeline); the CUPTI reply can
    std::vector<int> lines;  // the source lines to change: the first line the top finding quotes must be one
};

inline std::vector<CorpusKernel> corpus_manifest() {
    std::vector<CorpusKernel> out;
    auto table = toml::parse_file(kCorpus + "/manifest.toml");
    if (auto* kernels = table["kernel"].as_array())
        for (auto& node : *kernels) {
            auto& k = *node.as_table();
            CorpusKernel kernel{k["file"].value_or(std::string()), k["expect"].value_or(std::string()), k["max_gain"].value_or(0.15),
                                k["replayable"].value_or(true), {}};
            if (auto* lines = k["lines"].as_array())
                for (auto& line : *lines) kernel.lines.push_back(static_cast<int>(line.value_or(0)));
            out.push_back(std::move(kernel));
        }
    return out;
}

inline std::string corpus_stem(const std::string& file) { return file.substr(0, file.size() - 3); }

// The two recordings of each kernel (tests/fixtures/h200-corpus): ncu's raw page
// (<kernel>.raw.csv, `--counters ncu`) and the worker's CUPTI reply (<kernel>.counters.json, the
// default counters on a GPU), which also carries the call's timeline.
enum class Recording { ncu, cupti };

inline const char* recording_name(Recording r) { return r == Recording::ncu ? "ncu" : "cupti"; }

inline std::string recorded_counters(const CorpusKernel& k, Recording r = Recording::ncu) {
    return kCorpusFixtures + corpus_stem(k.file) + (r == Recording::ncu ? ".raw.csv" : ".counters.json");
}

// Whether that recording can judge the kernel: ncu's page has no timeline (replayable = false).
inline bool judges(const CorpusKernel& k, Recording r) { return r == Recording::cupti || k.replayable; }

}  // namespace kp::testing
