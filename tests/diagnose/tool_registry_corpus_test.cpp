// Every registered micro-profiling tool proven on counters recorded on the H200 (issue 12 item 2),
// parametrized over the tool registry: each tool needs a flawed corpus kernel (manifest `expect`
// = the tool) with recorded counters on which it ranks first, and a healthy one (`expect = "none"`)
// on which, run even outside its roofline class, it stays at or under the kernel's max_gain. A
// tool added without a corpus kernel fails here; one whose kernels are not recorded yet is
// skipped with their names (until `scripts/gpu-check corpus` records them). Recorded counters: tests/fixtures/h200-corpus (written by
// `scripts/gpu-check corpus` with KP_RECORD_DIR); manifest: tests/profile_corpus/manifest.toml.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/tool_registry.h"
#include "corpus_manifest.h"
#include "profile_fixture.h"

using namespace kp::testing;

namespace {

const std::vector<CorpusKernel>& manifest() {
    static const std::vector<CorpusKernel> entries = corpus_manifest();
    return entries;
}

// The recording a kernel is replayed from: the worker's CUPTI reply (the GPU's default counters,
// with the call's timeline), else ncu's page where that can judge it.
std::optional<std::string> recording_of(const CorpusKernel& k) {
    for (Recording r : {Recording::cupti, Recording::ncu})
        if (judges(k, r) && std::filesystem::exists(recorded_counters(k, r))) return recorded_counters(k, r);
    return std::nullopt;
}

bool recorded(const CorpusKernel& k) { return recording_of(k).has_value(); }

std::vector<std::string> registered_tools() {
    return kp::analysis::default_tool_registry().names();
}

// The first kernel of a corpus kernel's profile replayed from its recorded counters, once per
// kernel and mode (every_tool: every registered tool runs, whatever the roofline class).
const nlohmann::json& replayed(const CorpusKernel& k, bool every_tool) {
    static std::map<std::string, nlohmann::json> cache;
    const std::string key = k.file + (every_tool ? "/all" : "/class");
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
    kp::diagnose::ProfileOptions options;
    options.ncu_csv = *recording_of(k);
    options.ceilings_file = kCorpusFixtures + "ceilings.json";
    if (every_tool) options.tools = registered_tools();
    auto run = profile_kernel(kCorpus + "/task", kCorpus + "/" + k.file, options);
    nlohmann::json kernel = nlohmann::json::object();
    if (run.ok && !run.report["kernels"].empty()) kernel = run.report["kernels"][0];
    else ADD_FAILURE() << k.file << ": " << run.error;
    return cache.emplace(key, kernel).first->second;
}

std::string listing(const nlohmann::json& kernel) {
    std::string out;
    for (const auto& f : kernel.value("findings", nlohmann::json::array()))
        out += "    " + f["tool"].get<std::string>() + " " + std::to_string(f["estimated_gain"].get<double>()) + "\n";
    return out.empty() ? "    (no findings)\n" : out;
}

std::optional<double> gain_of(const nlohmann::json& kernel, const std::string& tool) {
    for (const auto& f : kernel.value("findings", nlohmann::json::array()))
        if (f["tool"] == tool) return f["estimated_gain"].get<double>();
    return std::nullopt;
}

bool ran(const nlohmann::json& kernel, const std::string& tool) {
    for (const auto& name : kernel.value("tools_run", nlohmann::json::array()))
        if (name == tool) return true;
    return false;
}

class EveryRegisteredTool : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(EveryRegisteredTool, RanksFirstOnARecordedFlawAndStaysQuietOnAHealthyKernel) {
    if (!have_nvcc()) GTEST_SKIP() << "no nvcc: the corpus kernels cannot be built";
    if (!have_sass_tools()) GTEST_SKIP() << "no nvdisasm/cuobjdump (scripts/install-nvidia-tools): the SASS tools cannot judge";
    const std::string tool = GetParam();

    std::string flawed_report;
    int positives = 0, flawed_recorded = 0;
    for (const auto& k : manifest()) {
        if (k.expect != tool) continue;
        if (!recorded(k)) {
            flawed_report += "  " + k.file + ": " + "no recorded counters" + "\n";
            continue;
        }
        ++flawed_recorded;
        const auto& kernel = replayed(k, /*every_tool=*/false);
        const auto& findings = kernel.value("findings", nlohmann::json::array());
        const bool first = !findings.empty() && findings[0]["tool"] == tool;
        positives += first;
        flawed_report += "  " + k.file + (first ? ": first\n" : ": not first\n" + listing(kernel));
    }
    // A tool with no corpus kernel at all fails; one whose kernels are written but not yet recorded
    // on a GPU is skipped, saying which (recording them turns the skip into the real check).
    ASSERT_FALSE(flawed_report.empty()) << tool << " has no flawed kernel in tests/profile_corpus/manifest.toml (expect = \"" << tool
                                        << "\"): write one whose only flaw it names, and record its counters (scripts/gpu-check corpus)";
    if (flawed_recorded == 0)
        GTEST_SKIP() << tool << ": its corpus kernels have no recorded counters yet (scripts/gpu-check corpus, KP_RECORD_DIR):\n"
                     << flawed_report;
    EXPECT_GE(positives, 1) << tool << " ranks first on no recorded flawed kernel of tests/profile_corpus/manifest.toml ("
                            << flawed_recorded << " recorded):\n" << flawed_report
                            << "write one whose only flaw it names, and record its counters (scripts/gpu-check corpus)";

    std::string healthy_report, healthy_unrecorded;
    int quiet = 0, healthy_ran = 0;
    for (const auto& k : manifest()) {
        if (k.expect != "none") continue;
        if (!recorded(k)) {
            healthy_unrecorded += "  " + k.file + "\n";
            continue;
        }
        const auto& kernel = replayed(k, /*every_tool=*/true);
        if (!ran(kernel, tool)) {
            healthy_report += "  " + k.file + ": did not run (its data is missing)\n";
            continue;
        }
        ++healthy_ran;
        const double gain = gain_of(kernel, tool).value_or(0.0);
        quiet += gain <= k.max_gain;
        healthy_report += "  " + k.file + ": " + std::to_string(gain) + " (max " + std::to_string(k.max_gain) + ")\n";
    }
    // A tool that judges what no recorded healthy kernel has (launch_overhead: a call of several
    // launches) waits for the healthy kernel written for it to be recorded.
    if (healthy_ran == 0 && !healthy_unrecorded.empty())
        GTEST_SKIP() << tool << " ran on no recorded healthy kernel; not recorded yet (scripts/gpu-check corpus):\n" << healthy_unrecorded
                     << healthy_report;
    EXPECT_GE(quiet, 1) << tool << " stays under its max_gain on no recorded healthy kernel:\n"
                        << (healthy_report.empty() ? "  (no healthy kernel recorded)\n" : healthy_report);
}

INSTANTIATE_TEST_SUITE_P(H200Corpus, EveryRegisteredTool, ::testing::ValuesIn(registered_tools()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });
