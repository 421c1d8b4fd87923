// Plain rows of the run store. The store knows columns and JSON blobs, not search semantics: the
// search layer converts its own types to and from these.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kp::store {

enum class RunStatus { running, finished, interrupted, failed };
const char* run_status_name(RunStatus status);
RunStatus parse_run_status(const std::string& text);  // unknown text reads as `failed`

struct NewRun {
    std::string task_name;
    std::string task_fingerprint;  // hash of the task spec, to refuse resuming against another task
    std::string config_json;
    std::string recipe_json;       // how the run was set up (search/run_recipe.h); "" for none
};

struct RunRecord {
    std::int64_t id = 0;
    std::string task_name;
    std::string task_fingerprint;
    RunStatus status = RunStatus::running;
    std::string stop_reason;
    std::string config_json;
    double elapsed_seconds = 0.0;
    std::string created_at;
    std::string updated_at;
    std::string recipe_json;  // "" for runs stored before recipes (schema version 3)
};

// One line of `kernelpro runs list`.
struct RunSummary {
    RunRecord run;
    std::int64_t nodes = 0;
    std::int64_t evaluations = 0;
    std::int64_t pending_nodes = 0;
    std::optional<double> best_speedup;  // over correct evaluations
    std::int64_t tokens = 0;
    double cost_usd = 0.0;
};

enum class NodeState { pending, done };

// Which proposal kinds a node's proposer said it has nothing more of (NodeRecord::proposer_exhausted).
namespace ExhaustedKinds {
constexpr std::int64_t parameter_moves = 1;
constexpr std::int64_t rewrites = 2;
}  // namespace ExhaustedKinds

struct NodeRecord {
    std::int64_t run_id = 0;
    std::int64_t node_id = 0;
    std::optional<std::int64_t> parent_id;
    std::string proposal_kind;  // baseline | parameter_move | rewrite
    std::string source;
    std::string params_json = "{}";
    std::string rationale;
    std::string evaluation_key;
    NodeState state = NodeState::pending;
    std::int64_t proposer_calls = 0;
    std::int64_t proposer_exhausted = 0;  // the kinds it has nothing more of: ExhaustedKinds bits
    std::string close_reason;
    std::string created_at;
};

struct EvaluationRecord {
    std::int64_t run_id = 0;
    std::int64_t node_id = 0;
    std::string evaluation_key;
    std::string status_class;
    std::optional<double> median_seconds;
    std::optional<double> speedup;
    std::optional<double> roofline_fraction;
    double reward = 0.0;
    std::string outcome_json = "{}";
    std::string created_at;
};

struct ProfileRecord {
    std::int64_t run_id = 0;
    std::int64_t node_id = 0;
    std::string kind;
    std::string data_json = "{}";
};

struct FindingRecord {
    std::int64_t run_id = 0;
    std::int64_t node_id = 0;
    std::string tool;
    double severity = 0.0;
    std::string message;
    std::string data_json = "{}";
};

enum class ProposalState { queued, expanded, duplicate };

struct ProposalRecord {
    std::int64_t id = 0;  // assigned by the store
    std::int64_t run_id = 0;
    std::int64_t parent_node_id = 0;
    std::string kind;
    std::string source;
    std::string params_json = "{}";
    std::string rationale;
    std::string evaluation_key;
    ProposalState state = ProposalState::queued;
    std::optional<std::int64_t> child_node_id;
};

struct LlmExchangeRecord {
    std::int64_t run_id = 0;
    std::optional<std::int64_t> node_id;
    std::string agent;
    std::string model;
    std::string prompt;
    std::string reply;
    std::int64_t tokens_in = 0;
    std::int64_t tokens_out = 0;
    double latency_seconds = 0.0;
    double cost_usd = 0.0;
    std::string tool_calls;  // JSON array of the reply's tool calls and their results; "" none
};

struct LlmTotals {
    std::int64_t exchanges = 0;
    std::int64_t tokens_in = 0;
    std::int64_t tokens_out = 0;
    double cost_usd = 0.0;
    std::int64_t tokens() const { return tokens_in + tokens_out; }
};

struct LessonRecord {
    std::int64_t id = 0;
    std::optional<std::int64_t> run_id;
    std::optional<std::int64_t> node_id;
    std::string task_name;
    std::string roofline_class;
    std::string tool_names;  // sorted, comma-separated
    std::string change_kind;
    std::string change_text;
    std::optional<double> speedup_ratio;
    std::optional<std::string> failure_class;
    std::string created_at;
};

// Everything that becomes durable when one evaluation finishes: written in one transaction.
struct CompletedEvaluation {
    EvaluationRecord evaluation;
    std::vector<ProfileRecord> profiles;
    std::vector<FindingRecord> findings;
    std::optional<LessonRecord> lesson;
    double run_elapsed_seconds = 0.0;  // the run's wall time after this evaluation
};

}  // namespace kp::store
