#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include "store/run_store.h"
#include "store/schema_migrations.h"
#include "temp_store.h"

using namespace kp::store;

TEST(SchemaMigrations, VersionsAreOrderedWithoutGaps) {
    const auto& migrations = schema_migrations();
    ASSERT_FALSE(migrations.empty());
    for (size_t i = 0; i < migrations.size(); ++i) EXPECT_EQ(migrations[i].version, static_cast<int>(i) + 1);
}

TEST(SchemaMigrations, FreshStoreIsAtLatestVersion) {
    kp::test_support::TempDirectory dir;
    auto store = RunStore::open(dir.path() / "runs.db");
    ASSERT_TRUE(store) << store.error().message;
    EXPECT_EQ(*read_schema_version(store->database()), latest_schema_version());
}

TEST(SchemaMigrations, UpgradesAnOldStoreKeepingItsData) {
    kp::test_support::TempDirectory dir;
    const auto path = dir.path() / "runs.db";
    {
        auto database = SqliteDatabase::open(path);
        ASSERT_TRUE(database);
        ASSERT_TRUE(migrate(*database, 1));  // a store written by a version-1 kernelpro
        EXPECT_EQ(*read_schema_version(*database), 1);
        ASSERT_TRUE(database->execute("INSERT INTO runs (task_name, status, config_json) VALUES ('old', 'finished', '{}')"));
    }
    auto store = RunStore::open(path);
    ASSERT_TRUE(store) << store.error().message;
    EXPECT_EQ(*read_schema_version(store->database()), latest_schema_version());
    auto runs = store->list_runs();
    ASSERT_TRUE(runs);
    ASSERT_EQ(runs->size(), 1u);
    EXPECT_EQ((*runs)[0].run.task_name, "old");
    LessonRecord lesson;
    lesson.task_name = "old";
    lesson.change_kind = "rewrite";
    lesson.change_text = "tile";
    EXPECT_TRUE(store->record_lesson(lesson));  // the version-2 table now exists
}

// Version 3 adds run recipes; a run stored before has none and says so with an empty recipe.
TEST(SchemaMigrations, RunsStoredBeforeRecipesLoadWithoutOne) {
    kp::test_support::TempDirectory dir;
    const auto path = dir.path() / "runs.db";
    {
        auto database = SqliteDatabase::open(path);
        ASSERT_TRUE(database);
        ASSERT_TRUE(migrate(*database, 2));
        ASSERT_TRUE(database->execute("INSERT INTO runs (task_name, status, config_json) VALUES ('old', 'interrupted', '{}')"));
    }
    auto store = RunStore::open(path);
    ASSERT_TRUE(store) << store.error().message;
    auto run = store->load_run(1);
    ASSERT_TRUE(run) << run.error().message;
    EXPECT_EQ(run->task_name, "old");
    EXPECT_EQ(run->recipe_json, "");
    ASSERT_TRUE(store->update_run_recipe(1, R"({"proposers":["tuner"]})"));
    EXPECT_EQ(store->load_run(1)->recipe_json, R"({"proposers":["tuner"]})");
}

TEST(SchemaMigrations, RefusesANewerStoreWithAClearMessage) {
    kp::test_support::TempDirectory dir;
    const auto path = dir.path() / "runs.db";
    {
        auto store = RunStore::open(path);
        ASSERT_TRUE(store);
        ASSERT_TRUE(store->database().execute("UPDATE schema_version SET version = 999"));
    }
    auto reopened = RunStore::open(path);
    ASSERT_FALSE(reopened);
    EXPECT_NE(reopened.error().message.find("newer than this kernelpro"), std::string::npos)
        << reopened.error().message;
    EXPECT_NE(reopened.error().message.find("999"), std::string::npos);
}

TEST(SchemaMigrations, ReopeningIsANoOp) {
    kp::test_support::TempDirectory dir;
    const auto path = dir.path() / "runs.db";
    ASSERT_TRUE(RunStore::open(path));
    auto again = RunStore::open(path);
    ASSERT_TRUE(again) << again.error().message;
    EXPECT_EQ(*read_schema_version(again->database()), latest_schema_version());
}

// Version 4 splits "exhausted" by proposal kind: an old exhausted node has nothing of either.
TEST(SchemaMigrations, AnOldExhaustedNodeIsExhaustedForEveryKind) {
    kp::test_support::TempDirectory dir;
    const auto path = dir.path() / "runs.db";
    {
        auto database = SqliteDatabase::open(path);
        ASSERT_TRUE(database);
        ASSERT_TRUE(migrate(*database, 3));
        ASSERT_TRUE(database->execute("INSERT INTO runs (task_name, status, config_json) VALUES ('old', 'finished', '{}')"));
        ASSERT_TRUE(database->execute(
            "INSERT INTO nodes (run_id, node_id, proposal_kind, source, params_json, evaluation_key, state, proposer_exhausted)"
            " VALUES (1, 0, 'baseline', 's', '{}', 'k0', 'done', 1), (1, 1, 'rewrite', 't', '{}', 'k1', 'done', 0)"));
    }
    auto store = RunStore::open(path);
    ASSERT_TRUE(store) << store.error().message;
    auto nodes = store->load_nodes(1);
    ASSERT_TRUE(nodes);
    ASSERT_EQ(nodes->size(), 2u);
    EXPECT_EQ((*nodes)[0].proposer_exhausted, ExhaustedKinds::parameter_moves | ExhaustedKinds::rewrites);
    EXPECT_EQ((*nodes)[1].proposer_exhausted, 0);
}

// Several kernelpro processes opening one new store at once (three `optimize` started together):
// the migrations run under one write transaction, so every process opens it, none sees "table
// runs already exists". Real processes, so SQLite's file locking is what is tested.
TEST(SchemaMigrations, ConcurrentFirstOpensAllSucceed) {
    kp::test_support::TempDirectory dir;
    const auto path = dir.path() / "runs.db";
    constexpr int kProcesses = 6;
    int ready[2];
    ASSERT_EQ(::pipe(ready), 0);
    std::vector<pid_t> children;
    for (int i = 0; i < kProcesses; ++i) {
        pid_t pid = ::fork();
        if (pid == 0) {
            char go;
            ::close(ready[1]);
            if (::read(ready[0], &go, 1) != 0) _exit(4);  // wait until all are forked: EOF is the start
            auto store = kp::store::RunStore::open(path);
            if (!store.ok()) {
                std::fprintf(stderr, "open failed: %s\n", store.error().message.c_str());
                _exit(1);
            }
            auto runs = store->list_runs();
            _exit(runs.ok() ? 0 : 2);
        }
        children.push_back(pid);
    }
    ::close(ready[0]);
    ::close(ready[1]);  // every child reads EOF now, at once
    for (pid_t pid : children) {
        int status = 0;
        ASSERT_EQ(::waitpid(pid, &status, 0), pid);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
    }
    auto store = kp::store::RunStore::open(path);
    ASSERT_TRUE(store.ok()) << store.error().message;
}

// A store in a folder this user cannot write (or on read-only media) is still readable.
TEST(SchemaMigrations, ReadOnlyOpenListsAnExistingStore) {
    kp::test_support::TempDirectory dir;
    const auto path = dir.path() / "runs.db";
    { ASSERT_TRUE(kp::store::RunStore::open(path).ok()); }
    auto store = kp::store::RunStore::open_read_only(path);
    ASSERT_TRUE(store.ok()) << store.error().message;
    auto runs = store->list_runs();
    ASSERT_TRUE(runs.ok()) << runs.error().message;
    EXPECT_TRUE(runs->empty());
    EXPECT_FALSE(kp::store::RunStore::open_read_only(dir.path() / "absent.db").ok());
}
