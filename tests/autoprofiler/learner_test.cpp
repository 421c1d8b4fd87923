// The learner on the recorded corpus: REWRITE and SPLIT mechanics, the enumerative learner
// improving a one-leaf tree, the learning log, resuming, and an LLM edit replayed from a script.
#include <gtest/gtest.h>

#include <fstream>
#include <optional>

#include <nlohmann/json.hpp>

#include "autoprofiler/learning_run.h"
#include "autoprofiler/named_trees.h"
#include "llm/scripted_chat_client.h"
#include "store/run_store.h"
#include "store/schema_migrations.h"
#include "recorded_records.h"

using namespace kp::autoprofiler;
using kp::testing::h200_costs;
using kp::testing::recorded_records;

namespace {

struct TempFile {
    std::filesystem::path path;
    explicit TempFile(const std::string& name) : path(std::filesystem::temp_directory_path() / (name + std::to_string(::getpid()))) {
        std::filesystem::remove(path);
    }
    ~TempFile() {
        for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + suffix);
    }
};

void split(std::vector<KernelRecord>& train, std::vector<KernelRecord>& held_out) { split_records(*recorded_records(), 4, train, held_out); }

Budget passes(int p) {
    Budget b;
    b.passes = p;
    return b;
}

// The enumerative learner on the recorded corpus's training kernels, logged in a fresh store.
struct EnumerativeRun {
    explicit EnumerativeRun(const std::string& db_name) : db(db_name) { split(train, held_out); }
    std::vector<KernelRecord> train, held_out;
    TempFile db;
    std::optional<LearningLog> log;
    kp::Result<LearningResult> result = kp::make_error("not run");
};

void learn_enumeratively(const LearningSettings& settings, const std::string& run_name, EnumerativeRun& run) {
    auto log = LearningLog::open(run.db.path);
    ASSERT_TRUE(log) << log.error().message;
    run.log.emplace(std::move(*log));
    auto proposer = enumerative_proposer();
    run.result = learn_tree(run.train, run.held_out, h200_costs(), *diagnosis_hit_rate(), {proposer.get()}, settings, *run.log, run_name);
    ASSERT_TRUE(run.result) << run.result.error().message;
}

}  // namespace

TEST(Learner, EnumerativeProposalsAreValidRewritesAndSplits) {
    KP_REQUIRE_RECORDED_CORPUS();
    std::vector<KernelRecord> train, held_out;
    split(train, held_out);
    ProfilingTree start = one_leaf_tree("start", {});
    std::vector<TreeOutcome> outcomes;
    for (const auto& k : train) outcomes.push_back(evaluate_tree(start, k, h200_costs(), passes(4), false));
    ProposalContext context{start, train, outcomes, h200_costs(), passes(4)};
    auto edits = enumerative_proposer()->propose(context);
    ASSERT_TRUE(edits);
    int rewrites = 0, splits = 0;
    for (const auto& e : *edits) {
        EXPECT_TRUE(validate_tree(e.tree, "edit")) << e.description << "\n" << to_toml(e.tree);
        if (e.kind == "REWRITE") {
            ++rewrites;
            EXPECT_EQ(e.tree.nodes.size(), 1u) << e.description;
        } else {
            ASSERT_EQ(e.kind, "SPLIT");
            ++splits;
            EXPECT_EQ(e.tree.nodes.size(), 3u) << e.description;
            EXPECT_FALSE(e.tree.nodes.at("root").is_leaf());
        }
    }
    // One add per action, max_findings changes, and splits on every signal.
    EXPECT_EQ(rewrites, static_cast<int>(action_catalogue().size()) + 3);
    EXPECT_GT(splits, 100);
}

TEST(Learner, EnumerativeLearnerImprovesAOneLeafTreeAndLogsEveryProposal) {
    KP_REQUIRE_RECORDED_CORPUS();
    EnumerativeRun run("kp_learn_a.db");
    LearningSettings settings;
    // 6 passes: below the roofline's 5 only the SASS and ptxas tools fit (every other action needs
    // the counters run, which counts the roofline first), and one edit is all there is to learn.
    settings.budget = passes(6);
    settings.max_rounds = 6;
    ASSERT_NO_FATAL_FAILURE(learn_enumeratively(settings, "a", run));
    const auto& result = run.result;
    const Score start = score_tree(one_leaf_tree("s", {}), run.train, h200_costs(), *diagnosis_hit_rate(), settings.budget);
    EXPECT_GT(result->train.value, start.value);
    EXPECT_GT(result->train.hit_rate, start.hit_rate);
    EXPECT_GE(result->accepted, 2);
    EXPECT_LE(result->train.mean_passes, 6.0);
    // Held out kernels are scored, not trained on.
    EXPECT_EQ(result->held_out.kernels, static_cast<int>(run.held_out.size()));
    auto rows = run.log->proposals(1);
    ASSERT_TRUE(rows);
    EXPECT_EQ(static_cast<int>(rows->size()), result->proposals);
    int accepted = 0;
    double last = start.value;
    for (const auto& r : *rows)
        if (r.accepted) {
            ++accepted;
            EXPECT_GT(r.score, last) << r.description;  // only improvements are accepted
            last = r.score;
        }
    EXPECT_EQ(accepted, result->accepted);
    EXPECT_NEAR(last, result->train.value, 1e-9);
    std::cout << to_toml(result->tree);
}

TEST(Learner, AnInterruptedRunResumesToTheSameTree) {
    KP_REQUIRE_RECORDED_CORPUS();
    std::vector<KernelRecord> train, held_out;
    split(train, held_out);
    auto objective = diagnosis_hit_rate();
    auto proposer = enumerative_proposer();
    LearningSettings settings;
    settings.budget = passes(4);
    settings.max_rounds = 4;
    TempFile whole_db("kp_learn_whole.db"), parts_db("kp_learn_parts.db");
    auto whole_log = LearningLog::open(whole_db.path);
    ASSERT_TRUE(whole_log);
    auto whole = learn_tree(train, held_out, h200_costs(), *objective, {proposer.get()}, settings, *whole_log, "run");
    ASSERT_TRUE(whole);
    {
        auto log = LearningLog::open(parts_db.path);
        ASSERT_TRUE(log);
        auto first = learn_tree(train, held_out, h200_costs(), *objective, {proposer.get()}, settings, *log, "run", 2);
        ASSERT_TRUE(first);
        EXPECT_EQ(first->rounds, 2);
    }
    auto log = LearningLog::open(parts_db.path);  // a new process, as after an interruption
    ASSERT_TRUE(log);
    auto resumed = learn_tree(train, held_out, h200_costs(), *objective, {proposer.get()}, settings, *log, "run");
    ASSERT_TRUE(resumed) << resumed.error().message;
    EXPECT_EQ(resumed->resumed_from_round, 2);
    EXPECT_EQ(to_toml(resumed->tree), to_toml(whole->tree));
    EXPECT_EQ(resumed->proposals, whole->proposals);
    // Other settings under the same run name are refused rather than mixed.
    settings.budget = passes(2);
    auto mixed = learn_tree(train, held_out, h200_costs(), *objective, {proposer.get()}, settings, *log, "run");
    ASSERT_FALSE(mixed);
    EXPECT_NE(mixed.error().message.find("exists with other settings"), std::string::npos);
}

// One learning round (8 passes: a tree that tests pays the roofline's 5 first) whose only proposer
// is the scripted LLM of `script`, logged in `db`.
struct LlmRound {
    std::shared_ptr<kp::llm::ScriptedChatClient> client;
    std::optional<LearningLog> log;
    kp::Result<LearningResult> result = kp::make_error("not run");
};

void learn_one_llm_round(const std::filesystem::path& script, const TempFile& db, const std::string& run_name, LlmRound& round) {
    std::vector<KernelRecord> train, held_out;
    split(train, held_out);
    auto client = kp::llm::ScriptedChatClient::open(script);
    ASSERT_TRUE(client) << client.error().message;
    round.client = *client;
    auto proposer = llm_proposer(round.client);
    auto log = LearningLog::open(db.path);
    ASSERT_TRUE(log);
    round.log.emplace(std::move(*log));
    LearningSettings settings;
    settings.budget = passes(8);
    settings.max_rounds = 1;
    round.result = learn_tree(train, held_out, h200_costs(), *diagnosis_hit_rate(), {proposer.get()}, settings, *round.log, run_name);
    ASSERT_TRUE(round.result) << round.result.error().message;
}

TEST(Learner, AnLlmProposedSplitIsReplayedAndAccepted) {
    KP_REQUIRE_RECORDED_CORPUS();
    // The recorded exchange (tests/fixtures/autoprofiler/llm_split.jsonl): the model splits the
    // empty start on local memory and gives the spilling side the spill tool.
    TempFile db("kp_learn_llm.db");
    LlmRound round;
    ASSERT_NO_FATAL_FAILURE(learn_one_llm_round(kp::testing::kSource + "/tests/fixtures/autoprofiler/llm_split.jsonl", db, "llm", round));
    auto rows = round.log->proposals(1);
    ASSERT_TRUE(rows);
    ASSERT_EQ(rows->size(), 1u);
    EXPECT_EQ((*rows)[0].proposer, "llm");
    EXPECT_EQ((*rows)[0].kind, "SPLIT");
    EXPECT_TRUE((*rows)[0].accepted);
    EXPECT_EQ(round.result->tree.nodes.at("root").signal, "static.local_bytes");
    EXPECT_EQ(round.client->served(), 1u);
}

// A tree that states its own measured cost would set what it is charged: an LLM's is refused.
TEST(Learner, AnLlmTreeThatStatesItsOwnMeasuredCostIsRefused) {
    KP_REQUIRE_RECORDED_CORPUS();
    TempFile script("kp_llm_measured.jsonl");
    {
        nlohmann::json line = {{"role", "autoprofiler"},
                               {"reply", "Everything, for free.\n\n```toml\nformat = \"kernelpro.profiling-tree/1\"\nroot = \"root\"\n\n"
                                         "[node.root]\nactions = [\"counters:roofline\", \"tool:register_spills\", \"tool:narrow_global_access\"]\n"
                                         "measured_cost = { seconds = 0, passes = 0 }\n```\n"}};
        std::ofstream(script.path) << line.dump() << "\n";
    }
    TempFile db("kp_learn_llm_measured.db");
    LlmRound round;
    ASSERT_NO_FATAL_FAILURE(learn_one_llm_round(script.path, db, "llm-measured", round));
    EXPECT_EQ(round.result->accepted, 0);
    EXPECT_TRUE(round.result->tree.nodes.at("root").collect.empty());  // still the empty start
    EXPECT_EQ(round.client->served(), 1u);
}

TEST(Learner, TheLlmPromptShowsTheTreeCostsAndOutcomes) {
    KP_REQUIRE_RECORDED_CORPUS();
    std::vector<KernelRecord> train, held_out;
    split(train, held_out);
    ProfilingTree start = one_leaf_tree("start", {kRooflineAction});
    std::vector<TreeOutcome> outcomes;
    for (const auto& k : train) outcomes.push_back(evaluate_tree(start, k, h200_costs(), passes(4), false));
    const std::string prompt = llm_proposal_prompt({start, train, outcomes, h200_costs(), passes(4)});
    EXPECT_NE(prompt.find("actions = [\"counters:roofline\"]"), std::string::npos);
    EXPECT_NE(prompt.find("4 replay passes"), std::string::npos);
    EXPECT_NE(prompt.find("- register_spills: flaw register_spills, leaf root, shown [], MISS"), std::string::npos) << prompt;
    EXPECT_NE(prompt.find("tool:shared_bank_conflicts ("), std::string::npos);
}

// The learning log is a run store (a schema migration): it opens and upgrades one, a run store
// opens it, and a log written before the migration keeps its runs.
TEST(Learner, TheLearningLogIsARunStore) {
    TempFile db("kp_learn_store.db");
    ASSERT_TRUE(kp::store::RunStore::open(db.path));
    std::int64_t run_id = 0;
    {
        auto log = LearningLog::open(db.path);
        ASSERT_TRUE(log) << log.error().message;
        auto run = log->run_for("corpus", "{}");
        ASSERT_TRUE(run) << run.error().message;
        run_id = *run;
        ProposalRow row{1, "enumerative", "SPLIT", "leaf start: test static.registers >= 40", 0.5, 0.5, 0.1, 1.0, true};
        ASSERT_TRUE(log->record_round(run_id, 1, {row}, std::string("root = \"start\""), false));
    }
    auto store = kp::store::RunStore::open(db.path);
    ASSERT_TRUE(store) << store.error().message;
    EXPECT_EQ(*kp::store::read_schema_version(store->database()), kp::store::latest_schema_version());
    auto log = LearningLog::open(db.path);
    ASSERT_TRUE(log);
    auto rows = log->proposals(run_id);
    ASSERT_TRUE(rows);
    ASSERT_EQ(rows->size(), 1u);
    EXPECT_EQ((*rows)[0].kind, "SPLIT");

    TempFile old("kp_learn_old.db");
    {
        auto raw = kp::store::SqliteDatabase::open(old.path, kp::store::Durability::process_crash_safe);
        ASSERT_TRUE(raw);
        ASSERT_TRUE(raw->execute(
            "CREATE TABLE autoprofile_run (id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL, settings TEXT NOT NULL,"
            " rounds_done INTEGER NOT NULL DEFAULT 0, finished INTEGER NOT NULL DEFAULT 0, tree TEXT);"
            "CREATE TABLE autoprofile_proposal (id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES autoprofile_run(id),"
            " round INTEGER NOT NULL, proposer TEXT NOT NULL, kind TEXT NOT NULL, description TEXT NOT NULL, score REAL NOT NULL,"
            " hit_rate REAL NOT NULL, mean_seconds REAL NOT NULL, mean_passes REAL NOT NULL, accepted INTEGER NOT NULL);"
            "INSERT INTO autoprofile_run (name, settings, rounds_done, tree) VALUES ('old', '{}', 3, 'root = \"n_1\"');"));
    }
    auto upgraded = LearningLog::open(old.path);
    ASSERT_TRUE(upgraded) << upgraded.error().message;
    auto state = upgraded->state(1);
    ASSERT_TRUE(state) << state.error().message;
    EXPECT_EQ(state->rounds_done, 3);
    EXPECT_EQ(state->tree_toml.value_or(""), "root = \"n_1\"");
    auto as_store = kp::store::RunStore::open(old.path);
    ASSERT_TRUE(as_store) << as_store.error().message;
    EXPECT_EQ(*kp::store::read_schema_version(as_store->database()), kp::store::latest_schema_version());
}

// `--start all`: the learner starts from today's full plan (every action, cut to the budget) and
// keeps only edits that beat it.
TEST(Learner, StartsFromTheFullPlanWhenAsked) {
    KP_REQUIRE_RECORDED_CORPUS();
    EnumerativeRun run("kp_learn_all.db");
    LearningSettings settings;
    settings.budget = passes(6);
    settings.max_rounds = 1;
    settings.start_actions = "all";
    ASSERT_NO_FATAL_FAILURE(learn_enumeratively(settings, "all", run));
    const Score full = score_tree(one_leaf_tree("s", action_catalogue()), run.train, h200_costs(), *diagnosis_hit_rate(), settings.budget);
    EXPECT_GE(run.result->train.value, full.value);
    EXPECT_GE(run.result->tree.nodes.at(run.result->tree.root).collect.size() + 1, action_catalogue().size());  // one edit at most
    EXPECT_LE(run.result->train.mean_passes, 6.0);
}
