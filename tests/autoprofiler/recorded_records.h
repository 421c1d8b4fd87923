// The recorded H200 corpus as the autoprofiler reads it, loaded once per test program (building
// 28 kernels takes a while): every kernel of tests/profile_corpus diagnosed with every tool from its
// CUPTI recording, and the shipped H200 cost table.
#pragma once

#include <gtest/gtest.h>

#include "../diagnose/profile_fixture.h"
#include "autoprofiler/catalogue.h"
#include "autoprofiler/kernel_record.h"

namespace kp::testing {

inline const Result<std::vector<autoprofiler::KernelRecord>>& recorded_records() {
    static const auto records = autoprofiler::load_corpus_records({kCorpus, kCorpusFixtures, {}});
    return records;
}

inline const autoprofiler::CostTable& h200_costs() {
    static const auto table = autoprofiler::load_cost_table(kSource + "/autoprofiler/costs/h200.toml");
    if (!table) throw std::runtime_error(table.error().message);
    return *table;
}

inline const autoprofiler::KernelRecord* record_named(const std::string& name) {
    for (const auto& r : *recorded_records())
        if (r.name == name) return &r;
    return nullptr;
}

}  // namespace kp::testing

// In a test body: skip without the tools, fail when the corpus cannot be loaded.
#define KP_REQUIRE_RECORDED_CORPUS()                                                                        \
    do {                                                                                                    \
        if (!kp::testing::have_nvcc()) GTEST_SKIP() << "no nvcc: the corpus kernels cannot be built";     \
        if (!kp::testing::have_sass_tools()) GTEST_SKIP() << "no nvdisasm/cuobjdump (scripts/install-nvidia-tools)"; \
        ASSERT_TRUE(kp::testing::recorded_records()) << kp::testing::recorded_records().error().message;  \
    } while (0)
