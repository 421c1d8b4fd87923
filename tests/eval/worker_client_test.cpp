// The orchestrator's classification of worker endings, and conversations with a worker that
// answers follow-ups, with real processes standing in for the worker (shell scripts in
// fake_workers/ that report, crash, hang or exit like a worker might).
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "../source_tree.h"
#include "eval/worker_client.h"

using namespace kp;

namespace {
Result<WorkerOutcome> run_fake_worker(const std::string& script, std::chrono::milliseconds watchdog) {
    WorkerOptions options;
    options.worker_executable = kp::testing::source_path("tests/eval/fake_workers/" + script);
    options.watchdog = watchdog;
    WorkerRequest request;
    request.task = {{"name", "t"}};
    return run_worker(request, options);
}

WorkerOutcome run_fake(const std::string& script, std::chrono::milliseconds watchdog = std::chrono::seconds(20)) {
    auto outcome = run_fake_worker(script, watchdog);
    EXPECT_TRUE(outcome.ok()) << (outcome.ok() ? "" : outcome.error().message);
    return outcome.ok() ? *outcome : WorkerOutcome{};
}
}  // namespace

TEST(WorkerClient, ResultAndProgressAreRead) {
    auto o = run_fake("ok.sh");
    EXPECT_EQ(o.status, FailureClass::Ok);
    EXPECT_EQ(o.hello.value("name", ""), "Fake GPU");
    EXPECT_EQ(o.result["timing"]["speedup"], 2.0);
    EXPECT_TRUE(o.phase_started.count("correctness"));
    EXPECT_NE(o.log.find("candidate printed this"), std::string::npos);  // stdout is captured, not parsed
}

TEST(WorkerClient, ReportedFailureKeepsItsClass) {
    auto o = run_fake("incorrect.sh");
    EXPECT_EQ(o.status, FailureClass::Incorrect);
    EXPECT_NE(o.message.find("mismatch"), std::string::npos);
}

TEST(WorkerClient, SegfaultIsACrash) {
    auto o = run_fake("segfault.sh");
    EXPECT_EQ(o.status, FailureClass::Crash);
    EXPECT_NE(o.message.find("signal 11"), std::string::npos) << o.message;
}

TEST(WorkerClient, AbortIsACrash) {
    auto o = run_fake("abort.sh");
    EXPECT_EQ(o.status, FailureClass::Crash);
    EXPECT_NE(o.message.find("signal 6"), std::string::npos) << o.message;
}

TEST(WorkerClient, SilenceIsATimeout) {
    auto start = std::chrono::steady_clock::now();
    auto o = run_fake("hang.sh", std::chrono::milliseconds(700));
    EXPECT_EQ(o.status, FailureClass::Timeout);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10.0);
}

TEST(WorkerClient, ExitWithoutResultIsACrash) {
    auto o = run_fake("exit_early.sh");
    EXPECT_EQ(o.status, FailureClass::Crash);
    EXPECT_NE(o.message.find("before reporting a result"), std::string::npos);
}

TEST(WorkerClient, ExternalSigkillMeansOutOfMemory) {
    auto o = run_fake("oom_killed.sh");
    EXPECT_EQ(o.status, FailureClass::OutOfMemory);
}

TEST(WorkerClient, MissingExecutableIsAnErrorNotACandidateVerdict) {
    WorkerOptions options;
    options.worker_executable = "/nonexistent/kernelpro-worker";
    auto o = run_worker(WorkerRequest{}, options);
    ASSERT_FALSE(o.ok());
    EXPECT_EQ(o.error().message, "the evaluation worker could not start: it ended before starting the GPU (it could not be executed)");
}

// Before `hello` no kernel is loaded: no GPU, or a worker dying at start, is the machine's
// problem (an error, exit 3 in the CLI), never a candidate `crash`.
TEST(WorkerClient, NoGpuBeforeHelloIsAnErrorNotACrash) {
    WorkerOptions options;
    options.worker_executable = kp::testing::source_path("tests/eval/fake_workers/no_gpu.sh");
    WorkerRequest request;
    request.task = {{"name", "t"}};
    auto o = run_worker(request, options);
    ASSERT_FALSE(o.ok());
    EXPECT_EQ(o.error().message, "the evaluation worker could not start: no usable GPU: no CUDA-capable device is detected");
    options.worker_executable = kp::testing::source_path("tests/eval/fake_workers/dies_at_start.sh");
    o = run_worker(request, options);
    ASSERT_FALSE(o.ok());
    EXPECT_EQ(o.error().message,
              "the evaluation worker could not start: it ended before starting the GPU (killed by signal Segmentation fault)");
}

TEST(WorkerClient, HostileChannelLinesAreIgnoredAndTextMadeValid) {
    auto o = run_fake("hostile_channel.sh");
    EXPECT_EQ(o.status, FailureClass::Crash);
    EXPECT_EQ(o.phase, "correctness");
    EXPECT_EQ(o.message, "illegal address \xEF\xBF\xBD\xEF\xBF\xBD");  // the forged earlier `result` does not count
    EXPECT_TRUE(o.result.is_null());
}

TEST(WorkerClient, AMessageWithoutTheNonceIsAForgery) {
    auto o = run_fake("forged.sh");
    EXPECT_EQ(o.status, FailureClass::RejectedBySandbox);
    EXPECT_NE(o.message.find("did not write"), std::string::npos) << o.message;
    EXPECT_NE(o.message.find("speedup"), std::string::npos) << o.message;  // the forged line, quoted
}

TEST(WorkerClient, TheSupervisorsViolationIsTheVerdict) {
    auto o = run_fake("violation.sh");
    EXPECT_EQ(o.status, FailureClass::RejectedBySandbox);
    EXPECT_EQ(o.message, "sandbox: execve(\"/bin/sh\") denied: starting programs is not allowed");
}

TEST(WorkerClient, ARefusalIsAnEnvironmentError) {
    auto outcome = run_fake_worker("refused.sh", std::chrono::seconds(20));
    ASSERT_FALSE(outcome.ok());
    EXPECT_NE(outcome.error().message.find("--require-sandbox"), std::string::npos);
}

TEST(WorkerClient, DeathBySigsysIsTheSandboxs) {
    auto o = run_fake("sigsys.sh");
    EXPECT_EQ(o.status, FailureClass::RejectedBySandbox);
    EXPECT_NE(o.message.find("signal 31"), std::string::npos) << o.message;
}

TEST(WorkerClient, EachWorkerGetsAScratchFolderThatIsRemovedAfterwards) {
    auto o = run_fake("scratch.sh");
    EXPECT_EQ(o.status, FailureClass::Ok);
    auto at = o.log.find("scratch=");
    ASSERT_NE(at, std::string::npos) << o.log;
    std::string path = o.log.substr(at + 8, o.log.find('\n', at) - at - 8);
    EXPECT_FALSE(path.empty());
    EXPECT_FALSE(std::filesystem::exists(path)) << path;
}

TEST(WorkerClient, CredentialsStayOutOfTheWorkersEnvironment) {
    ::setenv("KP_TEST_OPENAI_API_KEY", "sk-not-for-candidates", 1);
    ::setenv("KP_TEST_GITHUB_TOKEN", "ghp-not-for-candidates", 1);
    ::setenv("KP_TEST_VISIBLE", "kept", 1);
    auto o = run_fake("environment.sh");
    ::unsetenv("KP_TEST_OPENAI_API_KEY");
    ::unsetenv("KP_TEST_GITHUB_TOKEN");
    ::unsetenv("KP_TEST_VISIBLE");
    EXPECT_EQ(o.status, FailureClass::Ok);
    EXPECT_EQ(o.log.find("not-for-candidates"), std::string::npos) << o.log;
    EXPECT_NE(o.log.find("KP_TEST_VISIBLE=kept"), std::string::npos) << o.log;
}

TEST(WorkerClient, LauncherStartsTheWorkerThroughAnotherProgram) {
    // As for PyTorch tasks, where Python hosts the worker library: the launcher's arguments come
    // first, then --channel-fd.
    WorkerOptions options;
    options.launcher = {"/bin/sh", kp::testing::source_path("tests/eval/fake_workers/ok.sh").string()};
    WorkerRequest request;
    request.task = {{"name", "t"}};
    auto outcome = run_worker(request, options);
    ASSERT_TRUE(outcome.ok()) << outcome.error().message;
    EXPECT_EQ(outcome->status, FailureClass::Ok);
    EXPECT_EQ(outcome->hello.value("name", ""), "Fake GPU");
}

namespace {
WorkerRequest follow_up_request() {
    WorkerRequest request;
    request.task = {{"name", "t"}};
    request.mode = "profile_counters";
    request.counter_metrics = {"dram__bytes_read.sum"};
    request.follow_ups = true;
    return request;
}

WorkerOptions follow_up_worker(std::chrono::milliseconds watchdog = std::chrono::seconds(20)) {
    WorkerOptions options;
    options.worker_executable = kp::testing::source_path("tests/eval/fake_workers/follow_ups.sh");
    options.watchdog = watchdog;
    return options;
}
}  // namespace

// A counters run with follow-ups: each collection answered in the same process, stdin kept open
// between them, the end of stdin ends the worker with its result.
TEST(WorkerConversation, FollowUpsAreAnsweredByTheSameProcess) {
    auto conversation = WorkerConversation::start(follow_up_request(), follow_up_worker());
    ASSERT_TRUE(conversation) << conversation.error().message;
    auto first = conversation->next_collection();
    ASSERT_TRUE(first);
    EXPECT_EQ((*first)["asked"], nlohmann::json({"dram__bytes_read.sum"}));
    EXPECT_EQ((*first)["passes"], 1);
    ASSERT_TRUE(conversation->send({{"counter_metrics", {"lts__t_sectors.sum", "l1tex__t_requests.sum"}}}));
    auto second = conversation->next_collection();
    ASSERT_TRUE(second);
    EXPECT_EQ((*second)["chip"], (*first)["chip"]);  // the same worker process
    EXPECT_EQ((*second)["passes"], 2);
    EXPECT_EQ((*second)["asked"], nlohmann::json({"lts__t_sectors.sum", "l1tex__t_requests.sum"}));
    auto ended = conversation->finish();
    ASSERT_TRUE(ended) << ended.error().message;
    EXPECT_EQ(ended->status, FailureClass::Ok) << ended->message;
    EXPECT_EQ(ended->result["collections"], 2);
}

// The watchdog counts only while kernelpro waits for the worker: a worker waiting for its
// follow-up while kernelpro plans it is not silent.
TEST(WorkerConversation, AWorkerWaitingForItsFollowUpIsNotSilent) {
    auto conversation = WorkerConversation::start(follow_up_request(), follow_up_worker(std::chrono::milliseconds(400)));
    ASSERT_TRUE(conversation) << conversation.error().message;
    ASSERT_TRUE(conversation->next_collection());
    std::this_thread::sleep_for(std::chrono::milliseconds(900));
    ASSERT_TRUE(conversation->send({{"counter_metrics", {"x"}}}));
    ASSERT_TRUE(conversation->next_collection());
    auto ended = conversation->finish();
    ASSERT_TRUE(ended);
    EXPECT_EQ(ended->status, FailureClass::Ok) << ended->message;
}

// A worker that ends without answering, or whose channel carried a line it did not write, gives no
// collection; finish() says what happened.
TEST(WorkerConversation, NoCollectionFromAWorkerThatEndedOrWhoseChannelWasForged) {
    WorkerOptions early = follow_up_worker();
    early.environment["FAKE_EXIT"] = "1";
    auto ended_early = WorkerConversation::start(follow_up_request(), early);
    ASSERT_TRUE(ended_early);
    EXPECT_FALSE(ended_early->next_collection());
    auto crash = ended_early->finish();
    ASSERT_TRUE(crash);
    EXPECT_EQ(crash->status, FailureClass::Crash);

    WorkerOptions forging = follow_up_worker();
    forging.environment["FAKE_FORGE"] = "1";
    auto forged = WorkerConversation::start(follow_up_request(), forging);
    ASSERT_TRUE(forged);
    EXPECT_FALSE(forged->next_collection());
    auto rejected = forged->finish();
    ASSERT_TRUE(rejected);
    EXPECT_EQ(rejected->status, FailureClass::RejectedBySandbox);
}

// Dropped without finish() (kernelpro gave up on it): the worker is killed, not left waiting.
TEST(WorkerConversation, ADroppedConversationKillsItsWorker) {
    pid_t pid = 0;
    {
        auto conversation = WorkerConversation::start(follow_up_request(), follow_up_worker());
        ASSERT_TRUE(conversation);
        auto first = conversation->next_collection();
        ASSERT_TRUE(first);
        pid = std::stoi((*first)["chip"].get<std::string>().substr(3));
        EXPECT_EQ(::kill(pid, 0), 0);
    }
    EXPECT_NE(::kill(pid, 0), 0);
}
