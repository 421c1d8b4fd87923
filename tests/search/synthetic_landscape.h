// Test helpers: synthetic reward landscapes for the search. A candidate's source is its path in
// an implicit tree ("root", "root.r0", "root.r0.p1" ...); its outcome is a pure function of that
// path, and so are a node's proposals, so runs are reproducible across processes and resumes.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "common/hash.h"
#include "search/evaluator.h"
#include "search/proposer.h"

namespace kp::search::synthetic {

// A stable number in [0, 1) from a string (SHA-256 based: identical on every platform).
inline double unit_hash(const std::string& text) {
    return static_cast<double>(std::stoull(sha256_hex(text).substr(0, 13), nullptr, 16)) / std::pow(16.0, 13);
}

inline EvaluationOutcome correct_outcome(double speedup, std::optional<double> roofline_fraction = std::nullopt) {
    EvaluationOutcome outcome;
    outcome.status = StatusClass::ok;
    outcome.median_seconds = 1e-3 / speedup;
    outcome.speedup = speedup;
    outcome.roofline_fraction = roofline_fraction;
    outcome.roofline_class = "memory_bound";
    outcome.findings.push_back(analysis::make_finding("uncoalesced_access", 0.5, "loads are uncoalesced"));
    outcome.findings_summary = "loads are uncoalesced";
    return outcome;
}

inline EvaluationOutcome failed_outcome(StatusClass status) {
    EvaluationOutcome outcome;
    outcome.status = status;
    outcome.message = "synthetic failure";
    return outcome;
}

// Every ".p0" step adds 0.3x; any other step costs 5%. Roofline fraction = 0.2 * speedup.
inline EvaluationOutcome steadily_better(const Candidate& candidate) {
    const auto& path = candidate.source;
    double speedup = 1.0;
    for (size_t at = path.find('.'); at != std::string::npos; at = path.find('.', at + 1))
        speedup = path.compare(at, 4, ".p0.") == 0 || (path.compare(at, 3, ".p0") == 0 && at + 3 == path.size())
                      ? speedup + 0.3
                      : speedup * 0.95;
    return correct_outcome(speedup, std::min(1.0, 0.2 * speedup));
}

// Evaluates with a function of the candidate; counts calls and can be slowed down.
class FunctionEvaluator : public Evaluator {
public:
    using Function = std::function<EvaluationOutcome(const Candidate&)>;
    explicit FunctionEvaluator(Function function) : function_(std::move(function)) {}
    Result<EvaluationOutcome> evaluate(const EvaluationRequest& request) override {
        if (on_start) on_start(request);
        ++calls;
        evaluated_sources.push_back(request.candidate.source);
        if (delay.count() > 0) std::this_thread::sleep_for(delay);
        return function_(request.candidate);
    }
    std::function<void(const EvaluationRequest&)> on_start;
    std::chrono::microseconds delay{0};
    int calls = 0;
    std::vector<std::string> evaluated_sources;

private:
    Function function_;
};

// Proposes a pure function of the node: its full child list, `per_call` at a time (call k gets
// children [k*per_call, (k+1)*per_call)). Records every request it saw.
class FunctionProposer : public Proposer {
public:
    using Children = std::function<std::vector<Proposal>(const NodeView&)>;
    FunctionProposer(Children children, int per_call) : children_(std::move(children)), per_call_(per_call) {}
    Result<ProposalBatch> propose(const ProposalRequest& request) override {
        requests.push_back(request);
        ProposalBatch batch;
        auto all = children_(request.node);
        const size_t begin = static_cast<size_t>(request.call_index) * static_cast<size_t>(per_call_);
        for (size_t i = begin; i < all.size() && i < begin + static_cast<size_t>(per_call_); ++i)
            batch.proposals.push_back(all[i]);
        if (tokens_per_call > 0 || cost_per_call > 0)
            batch.exchanges.push_back({"synthetic", "none", "prompt", "reply", tokens_per_call / 2,
                                       tokens_per_call - tokens_per_call / 2, 0.0, cost_per_call, ""});
        return batch;
    }
    std::int64_t tokens_per_call = 0;
    double cost_per_call = 0.0;
    std::vector<ProposalRequest> requests;

private:
    Children children_;
    int per_call_;
};

inline Proposal make_proposal(ProposalKind kind, const std::string& source, const std::string& rationale = "") {
    return Proposal{kind, Candidate{source, {}}, rationale.empty() ? "try " + source : rationale};
}

// `branching` parameter moves and `branching` rewrites under every node, alternating.
inline FunctionProposer::Children uniform_children(int branching) {
    return [branching](const NodeView& node) {
        std::vector<Proposal> children;
        for (int i = 0; i < branching; ++i) {
            children.push_back(make_proposal(ProposalKind::parameter_move, node.candidate.source + ".p" + std::to_string(i)));
            children.push_back(make_proposal(ProposalKind::rewrite, node.candidate.source + ".r" + std::to_string(i)));
        }
        return children;
    };
}

// A rugged landscape (the first path segment is the baseline; its name salts the landscape): each
// step multiplies the parent's speedup by a log-normal-ish factor (wider
// for rewrites), and fails with some probability; everything keyed on the path.
inline EvaluationOutcome rugged_outcome(const std::string& path, double failure_rate = 0.15) {
    double speedup = 1.0;
    std::string prefix;
    size_t start = 0;
    while (true) {
        size_t dot = path.find('.', start);
        std::string step = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        const bool is_root = prefix.empty();
        prefix += (prefix.empty() ? "" : ".") + step;
        if (!is_root) {
            if (unit_hash("fail:" + prefix) < failure_rate) return failed_outcome(StatusClass::incorrect);
            const double spread = step[0] == 'r' ? 0.5 : 0.15;
            speedup *= std::exp(spread * (unit_hash("gain:" + prefix) * 2.0 - 0.8));
        }
        if (dot == std::string::npos) break;
        start = dot + 1;
    }
    return correct_outcome(speedup, std::min(1.0, 0.2 * speedup));
}

inline int count_productive_steps(const std::string& path, size_t from) {
    int steps = 0;
    for (size_t at = path.find(".c0", from); at != std::string::npos; at = path.find(".c0", at + 3)) ++steps;
    return steps;
}
inline bool has_unproductive_step(const std::string& path) {
    for (size_t at = path.find(".c"); at != std::string::npos; at = path.find(".c", at + 2))
        if (path.compare(at, 3, ".c0") != 0) return true;
    return false;
}
// The deceptive landscape: the best-looking first step (root.A, 1.3x) leads to a plateau of tiny
// gains (at most 1.55x), while a step that is slower at first (root.B, 0.8x) leads to large ones
// (1.1x, 1.65x, 2.5x ... up to 6x). Below every node, step "c0" is the productive one.
inline EvaluationOutcome deceptive(const Candidate& candidate) {
    const auto& path = candidate.source;
    if (path == "root") return correct_outcome(1.0);
    if (path.rfind("root.A", 0) == 0) {
        if (has_unproductive_step(path)) return correct_outcome(1.2);
        const int k = count_productive_steps(path, 6);
        return correct_outcome(1.3 + 0.25 * (1.0 - std::pow(0.7, k)));
    }
    if (path.rfind("root.B", 0) == 0) {
        if (has_unproductive_step(path)) return correct_outcome(0.7);
        const int k = count_productive_steps(path, 6);
        if (k == 0) return correct_outcome(0.8);
        return correct_outcome(std::min(6.0, 1.1 * std::pow(1.5, k - 1)));
    }
    return correct_outcome(0.95);
}
inline std::vector<Proposal> deceptive_children(const NodeView& node) {
    const auto& path = node.candidate.source;
    std::vector<Proposal> children;
    if (path == "root") {
        children.push_back(make_proposal(ProposalKind::rewrite, "root.A"));
        children.push_back(make_proposal(ProposalKind::parameter_move, "root.p0"));
        children.push_back(make_proposal(ProposalKind::rewrite, "root.B"));
        for (int i = 1; i < 6; ++i) children.push_back(make_proposal(ProposalKind::parameter_move, "root.p" + std::to_string(i)));
        return children;
    }
    if (path.rfind("root.p", 0) == 0) return children;
    for (int i = 0; i < 6; ++i)
        children.push_back(make_proposal(i % 3 == 0 ? ProposalKind::rewrite : ProposalKind::parameter_move, path + ".c" + std::to_string(i)));
    return children;
}
// The plateau landscape, closer to real kernels: every rewrite starts a family (a new algorithm)
// with its own ceiling, at first often slower than its parent; parameter moves then close part of
// the gap to that ceiling. Good families are rare (ceilings are skewed low). Salted by the root name.
inline EvaluationOutcome plateau(const Candidate& candidate) {
    const auto& path = candidate.source;
    double speedup = 1.0, ceiling = 1.3;
    size_t start = path.find('.');
    std::string prefix = path.substr(0, start);
    while (start != std::string::npos) {
        size_t dot = path.find('.', start + 1);
        std::string step = path.substr(start + 1, dot == std::string::npos ? std::string::npos : dot - start - 1);
        prefix += "." + step;
        if (unit_hash("fail:" + prefix) < 0.15) return failed_outcome(StatusClass::incorrect);
        if (step[0] == 'r') {
            ceiling = 1.0 + 7.0 * std::pow(unit_hash("ceil:" + prefix), 3.0);
            speedup *= 0.6 + 0.6 * unit_hash("gain:" + prefix);
        } else {
            speedup += (ceiling - speedup) * 0.5 * unit_hash("gain:" + prefix);
        }
        start = dot;
    }
    return correct_outcome(std::max(0.05, speedup));
}
}  // namespace kp::search::synthetic
