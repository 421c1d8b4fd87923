// What the search explores: a kernel version (source text plus tunable parameter values) for one
// task, and the idempotency key that identifies its evaluation.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace kp::search {

// Tunable parameters as strings, because they end up as compile definitions (-DBLOCK=128);
// std::map keeps them ordered, so the key and the JSON form are deterministic.
using ParameterValues = std::map<std::string, std::string>;

struct Candidate {
    std::string source;
    ParameterValues params;
    bool operator==(const Candidate&) const = default;
};

// The task a run optimizes. The fingerprint (a hash of the task spec and reference) makes keys
// differ when the task changes under the same name.
struct TaskIdentity {
    std::string name;
    std::string fingerprint;
};

// hash(task, source, params): two nodes with the same key are the same experiment, so a run
// evaluates each key at most once.
std::string evaluation_key(const TaskIdentity& task, const Candidate& candidate);

nlohmann::json params_to_json(const ParameterValues& params);
Result<ParameterValues> params_from_json(const std::string& text);

}  // namespace kp::search
