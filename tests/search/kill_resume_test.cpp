// Crash safety for real: a child process runs the search and is killed with SIGKILL (at random
// times, and at chosen points: mid-evaluation and right after a commit); the run is resumed each
// time; at the end no evaluation is lost or repeated and the tree equals an uninterrupted run's.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <thread>

#include "driver_fixture.h"

using namespace kp::search;
using namespace kp::search::synthetic;

namespace {

constexpr std::int64_t kEvaluations = 60;

SearchConfig kill_test_config() { return test_config(kEvaluations, 11); }

FunctionProposer make_proposer() { return FunctionProposer(uniform_children(4), 3); }

EvaluationOutcome landscape(const Candidate& candidate) { return rugged_outcome(candidate.source); }

void append_line(const std::filesystem::path& log, const std::string& line) {
    int fd = ::open(log.c_str(), O_WRONLY | O_APPEND | O_CREAT, 0600);
    if (fd < 0) return;
    std::string text = line + "\n";
    (void)!::write(fd, text.data(), text.size());  // one small O_APPEND write: never interleaved
    ::close(fd);
}

enum class SelfKill { none, during_evaluation_of_node, after_commit_of_node };

// One session of the search, as a killed process would run it: start the run if the store has
// none, else resume it. Logs "start <key>" when an evaluation begins and "done <key>" once it is
// committed (the progress callback runs after the commit).
int run_session(const std::filesystem::path& db, const std::filesystem::path& log, SelfKill self_kill,
                std::int64_t kill_node) {
    auto opened = kp::store::RunStore::open(db);
    if (!opened) return 3;
    auto& store = *opened;
    FunctionEvaluator evaluator(landscape);
    evaluator.delay = std::chrono::milliseconds(2);
    evaluator.on_start = [&](const EvaluationRequest& request) {
        append_line(log, "start " + request.evaluation_key);
        if (self_kill == SelfKill::during_evaluation_of_node && request.node_id == kill_node) ::raise(SIGKILL);
    };
    auto proposer = make_proposer();
    SearchDriver driver(store, evaluator, proposer);
    driver.set_progress_callback([&](const SearchProgress& progress) {
        append_line(log, "done " + driver.tree().node(progress.node_id).evaluation_key);
        if (self_kill == SelfKill::after_commit_of_node && progress.node_id == kill_node) ::raise(SIGKILL);
    });
    auto runs = store.list_runs();
    if (!runs) return 3;
    auto outcome = runs->empty() ? driver.start(kTask, kBaseline, kill_test_config()) : driver.resume(runs->front().run.id);
    return outcome ? 0 : 4;
}

// Runs a session in a child process; kills it after `kill_after` unless it dies or ends first.
// Returns true when the child ended by SIGKILL.
bool run_child(const std::filesystem::path& db, const std::filesystem::path& log, SelfKill self_kill,
               std::int64_t kill_node, std::optional<std::chrono::milliseconds> kill_after) {
    pid_t pid = ::fork();
    if (pid == 0) ::_exit(run_session(db, log, self_kill, kill_node));
    if (pid < 0) throw std::runtime_error("fork failed");
    if (kill_after) {
        std::this_thread::sleep_for(*kill_after);
        ::kill(pid, SIGKILL);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (WIFEXITED(status)) {
        EXPECT_EQ(WEXITSTATUS(status), 0);
    }
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

std::vector<std::string> reference_tree(const std::filesystem::path& db) {
    auto store = open_store(db);
    FunctionEvaluator evaluator(landscape);
    auto proposer = make_proposer();
    SearchDriver driver(store, evaluator, proposer);
    auto outcome = driver.start(kTask, kBaseline, kill_test_config());
    EXPECT_TRUE(outcome);
    return describe_tree(driver.tree());
}

// Checks the log: no key started again after it was committed, and each kill caused at most one
// extra start (a pending evaluation killed twice in a row is started three times, legitimately).
void check_log(const std::filesystem::path& log, int kills) {
    std::ifstream in(log);
    std::map<std::string, int> starts;
    std::set<std::string> done;
    for (std::string line; std::getline(in, line);) {
        std::istringstream fields(line);
        std::string event, key;
        fields >> event >> key;
        if (event == "start") {
            EXPECT_FALSE(done.count(key)) << "evaluation repeated after its commit: " << key;
            ++starts[key];
        } else if (event == "done") {
            EXPECT_FALSE(done.count(key)) << "evaluation committed twice: " << key;
            done.insert(key);
        }
    }
    int extra_starts = 0;
    for (const auto& [key, count] : starts) {
        EXPECT_LE(count, 1 + kills) << key;
        extra_starts += count - 1;
    }
    EXPECT_LE(extra_starts, kills);
}

// The store after the final resume: every node done with exactly one evaluation.
void check_store(const std::filesystem::path& db, const std::vector<std::string>& expected_tree) {
    auto store = open_store(db);
    auto runs = store.list_runs();
    ASSERT_TRUE(runs);
    ASSERT_EQ(runs->size(), 1u);
    const auto& summary = runs->front();
    EXPECT_EQ(summary.run.status, kp::store::RunStatus::finished);
    EXPECT_EQ(summary.evaluations, kEvaluations);
    EXPECT_EQ(summary.nodes, kEvaluations);
    EXPECT_EQ(summary.pending_nodes, 0);
    auto evaluations = store.load_evaluations(summary.run.id);
    std::set<std::int64_t> nodes;
    for (const auto& evaluation : *evaluations) EXPECT_TRUE(nodes.insert(evaluation.node_id).second);

    // Rebuilt from the store alone, the tree is the uninterrupted run's tree.
    FunctionEvaluator evaluator(landscape);
    auto proposer = make_proposer();
    SearchDriver driver(store, evaluator, proposer);
    auto outcome = driver.resume(summary.run.id);
    ASSERT_TRUE(outcome);
    EXPECT_EQ(evaluator.calls, 0);  // nothing left to do
    EXPECT_EQ(describe_tree(driver.tree()), expected_tree);
}

}  // namespace

TEST(KillResume, SigkillMidEvaluationAndAfterCommit) {
    kp::test_support::TempDirectory dir;
    const auto expected = reference_tree(dir.path() / "reference.db");
    const auto db = dir.path() / "runs.db";
    const auto log = dir.path() / "events.log";
    EXPECT_TRUE(run_child(db, log, SelfKill::during_evaluation_of_node, 0, std::nullopt));   // the baseline
    EXPECT_TRUE(run_child(db, log, SelfKill::during_evaluation_of_node, 7, std::nullopt));
    EXPECT_TRUE(run_child(db, log, SelfKill::after_commit_of_node, 15, std::nullopt));
    EXPECT_TRUE(run_child(db, log, SelfKill::during_evaluation_of_node, 16, std::nullopt));  // right after resume
    EXPECT_FALSE(run_child(db, log, SelfKill::none, 0, std::nullopt));                      // to the end
    check_log(log, 4);
    check_store(db, expected);
}

TEST(KillResume, SigkillAtRandomTimes) {
    kp::test_support::TempDirectory dir;
    const auto expected = reference_tree(dir.path() / "reference.db");
    const auto db = dir.path() / "runs.db";
    const auto log = dir.path() / "events.log";
    const auto seed = std::random_device{}();
    SCOPED_TRACE("random seed " + std::to_string(seed));
    std::mt19937 random(seed);
    std::uniform_int_distribution<int> delay_ms(5, 40);
    int kills = 0;
    for (int round = 0; round < 8; ++round)
        kills += run_child(db, log, SelfKill::none, 0, std::chrono::milliseconds(delay_ms(random)));
    EXPECT_FALSE(run_child(db, log, SelfKill::none, 0, std::nullopt));
    EXPECT_GE(kills, 1);
    check_log(log, kills);
    check_store(db, expected);
}
