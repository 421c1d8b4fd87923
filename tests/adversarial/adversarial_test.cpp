// Every cheating candidate of manifest.toml must end in its expected failure class (or one of its
// `also` classes); every honest one must pass. Needs a GPU.
#include <gtest/gtest.h>

#include <toml++/toml.h>

#include "eval_fixture.h"

using namespace kp;
namespace fs = std::filesystem;

namespace {

struct Entry {
    std::string file, trick, expect;
    std::vector<std::string> also;
};

std::vector<Entry> read_manifest() {
    std::vector<Entry> entries;
    auto root = toml::parse_file(kp::testing::source_path("tests/adversarial/manifest.toml").string());
    for (const auto& node : *root["candidate"].as_array()) {
        const auto& t = *node.as_table();
        Entry e{t["file"].value_or(std::string()), t["trick"].value_or(std::string()), t["expect"].value_or(std::string()), {}};
        if (const auto* also = t["also"].as_array())
            for (const auto& a : *also) e.also.push_back(a.value_or(std::string()));
        entries.push_back(e);
    }
    return entries;
}

}  // namespace

TEST(AdversarialSuite, ManifestCoversTheCatalogue) {
    auto entries = read_manifest();
    size_t cheats = 0;
    for (const auto& e : entries) {
        EXPECT_TRUE(fs::exists(kp::testing::source_path("tests/adversarial") / e.file)) << e.file;
        EXPECT_TRUE(parse_failure_class(e.expect).has_value()) << e.file << ": " << e.expect;
        if (e.expect != "ok") ++cheats;
    }
    EXPECT_GE(cheats, 12u);
}

TEST(AdversarialSuite, EveryCheatIsCaughtAndEveryHonestKernelPasses) {
    KP_SKIP_WITHOUT_GPU();
    auto task = load_task(kp::testing::source_path("tests/adversarial") / "task");
    ASSERT_TRUE(task.ok()) << task.error().message;
    BuilderOptions build_options;
    build_options.arch = detect_gpu_arch();
    CandidateBuilder builder(build_options);
    auto entries = read_manifest();
    // Compile everything in parallel first; the evaluations then hit the cache.
    std::vector<BuildRequest> requests;
    for (const auto& e : entries) requests.push_back({kp::testing::source_path("tests/adversarial") / e.file, {}, task->libraries, true});
    builder.build_many(requests);
    Evaluator evaluator(builder, kp::testing::test_worker_options());
    size_t caught = 0, cheats = 0;
    for (const auto& e : entries) {
        auto report = evaluator.evaluate(*task, kp::testing::source_path("tests/adversarial") / e.file, kp::testing::quick_evaluation_options());
        ASSERT_TRUE(report.ok()) << e.file << ": " << report.error().message;
        std::string got = failure_class_name(report->status);
        bool as_expected = got == e.expect || std::find(e.also.begin(), e.also.end(), got) != e.also.end();
        if (e.expect != "ok") {
            ++cheats;
            if (got != "ok") ++caught;
        }
        std::printf("[adversarial] %-28s expect %-18s got %-18s %s\n", e.file.c_str(), e.expect.c_str(), got.c_str(),
                    as_expected ? "OK" : "MISMATCH");
        EXPECT_TRUE(as_expected) << e.file << " (" << e.trick << "): expected " << e.expect << ", got " << got << ": "
                                 << report->message;
    }
    std::printf("[adversarial] %zu of %zu cheats rejected\n", caught, cheats);
}
