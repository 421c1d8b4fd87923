// Every cheating candidate of manifest.toml must end in its expected failure class (or one of its
// `also` classes), every escape must be stopped with nothing left outside the scratch folder, and
// every honest candidate must pass, with the sandbox on. Needs a GPU.
#include <gtest/gtest.h>

#include <toml++/toml.h>

#include <map>

#include "eval_fixture.h"
#include "sandbox/sandbox_report.h"
#include "sandbox_fixture.h"

using namespace kp;
namespace fs = std::filesystem;

namespace {

struct Entry {
    std::string file, trick, expect;
    std::string task = "task";  // the folder under tests/adversarial (task_cutlass: CUTLASS allowed)
    std::vector<std::string> also{};
    ParameterValues parameters{};  // escapes: KP_GOAL and KP_ROUTE
    bool guard = true;
};

std::vector<Entry> read_manifest() {
    std::vector<Entry> entries;
    auto root = toml::parse_file(kp::testing::source_path("tests/adversarial/manifest.toml").string());
    for (const auto& node : *root["candidate"].as_array()) {
        const auto& t = *node.as_table();
        Entry e{t["file"].value_or(std::string()), t["trick"].value_or(std::string()), t["expect"].value_or(std::string())};
        e.task = t["task"].value_or(std::string("task"));
        if (const auto* also = t["also"].as_array())
            for (const auto& a : *also) e.also.push_back(a.value_or(std::string()));
        entries.push_back(e);
    }
    // Each [[escape]] block stands for every goal by every route it lists.
    if (const auto* escapes = root["escape"].as_array())
        for (const auto& node : *escapes) {
            const auto& t = *node.as_table();
            for (const auto& g : *t["goals"].as_array())
                for (const auto& r : *t["routes"].as_array()) {
                    Entry e;
                    e.file = t["file"].value_or(std::string());
                    e.expect = t["expect"].value_or(std::string());
                    e.guard = t["guard"].value_or(true);
                    e.parameters = {{"KP_GOAL", std::to_string(g.value_or(0))}, {"KP_ROUTE", std::to_string(r.value_or(0))}};
                    e.trick = "escape goal " + e.parameters["KP_GOAL"] + " by route " + e.parameters["KP_ROUTE"] +
                              (e.guard ? " (guard on)" : " (no guard)");
                    entries.push_back(e);
                }
        }
    return entries;
}

std::string label(const Entry& e) {
    if (e.parameters.empty()) return e.task == "task" ? e.file : e.file + " (" + e.task + ")";
    return "escape g" + e.parameters.at("KP_GOAL") + " r" + e.parameters.at("KP_ROUTE") + (e.guard ? " +guard" : "");
}

}  // namespace

TEST(AdversarialSuite, ManifestCoversTheCatalogue) {
    auto entries = read_manifest();
    size_t cheats = 0, escapes = 0;
    for (const auto& e : entries) {
        EXPECT_TRUE(fs::exists(kp::testing::source_path("tests/adversarial") / e.file)) << e.file;
        EXPECT_TRUE(load_task(kp::testing::source_path("tests/adversarial") / e.task).ok()) << e.file << ": task " << e.task;
        EXPECT_TRUE(parse_failure_class(e.expect).has_value()) << e.file << ": " << e.expect;
        if (e.expect != "ok") ++cheats;
        if (!e.parameters.empty()) ++escapes;
    }
    EXPECT_GE(cheats, 12u);
    EXPECT_GE(escapes, 48u);  // 12 goals by 4 routes behind no guard, at least
}

TEST(AdversarialSuite, EveryCheatIsCaughtAndEveryHonestKernelPasses) {
    KP_SKIP_WITHOUT_GPU();
    auto entries = read_manifest();
    std::map<std::string, TaskSpec> tasks;
    for (const auto& e : entries) {
        if (tasks.count(e.task)) continue;
        auto task = load_task(kp::testing::source_path("tests/adversarial") / e.task);
        ASSERT_TRUE(task.ok()) << task.error().message;
        tasks.emplace(e.task, *task);
    }
    BuilderOptions build_options;
    build_options.arch = detect_gpu_arch();
    CandidateBuilder builder(build_options);
    // Compile everything in parallel first; the evaluations then hit the cache.
    std::vector<BuildRequest> requests;
    for (const auto& e : entries)
        requests.push_back(task_build_request(tasks.at(e.task), kp::testing::source_path("tests/adversarial") / e.file, e.parameters, e.guard));
    builder.build_many(requests);
    Evaluator evaluator(builder, kp::testing::test_worker_options());
    kp::testing::EscapeWorld world;  // what the escapes aim at; checked after each
    size_t caught = 0, cheats = 0;
    bool sandbox_shown = false;
    for (const auto& e : entries) {
        auto options = kp::testing::quick_evaluation_options();
        options.candidate_parameters = e.parameters;
        options.guard_candidate = e.guard;
        auto report = evaluator.evaluate(tasks.at(e.task), kp::testing::source_path("tests/adversarial") / e.file, options);
        ASSERT_TRUE(report.ok()) << label(e) << ": " << report.error().message;
        if (!sandbox_shown && report->sandbox.is_object()) {
            std::printf("[sandbox] %s\n", sandbox::SandboxReport::from_json(report->sandbox).summary().c_str());
            sandbox_shown = true;
        }
        std::string got = failure_class_name(report->status);
        bool as_expected = got == e.expect || std::find(e.also.begin(), e.also.end(), got) != e.also.end();
        if (e.expect != "ok") {
            ++cheats;
            if (got != "ok") ++caught;
        }
        auto traces = world.traces();
        std::printf("[adversarial] %-28s expect %-19s got %-19s %s%s\n", label(e).c_str(), e.expect.c_str(), got.c_str(),
                    as_expected && traces.empty() ? "OK" : "MISMATCH",
                    e.parameters.empty() ? "" : (": " + report->message.substr(0, 150)).c_str());
        EXPECT_TRUE(as_expected) << label(e) << " (" << e.trick << "): expected " << e.expect << ", got " << got << ": "
                                 << report->message;
        EXPECT_EQ(traces, std::vector<std::string>{}) << label(e) << " left something outside the scratch folder";
    }
    std::printf("[adversarial] %zu of %zu cheats and escapes rejected\n", caught, cheats);
}
