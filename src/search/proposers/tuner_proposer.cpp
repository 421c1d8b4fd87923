#include "search/proposers/tuner_proposer.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <random>

#include <fmt/format.h>

#include "search/proposer_registry.h"
#include "search/proposers/parameter_moves.h"

namespace kp::search {

namespace {

void add(std::vector<MoveHint>& hints, ParameterRole role, int direction, double weight, const std::string& reason) {
    hints.push_back({role, direction, weight, reason});
}

// The parameter moves of a set of remedies, each weighted by how strongly it points and by `weight`.
void add_remedies(std::vector<MoveHint>& hints, const std::vector<analysis::Remedy>& remedies, double weight, const std::string& reason) {
    for (const auto& r : remedies)
        if (r.moves_a_parameter()) add(hints, r.role, r.direction, weight * r.strength, reason);
}

}  // namespace

nlohmann::json compiler_facts_to_json(const CompilerFacts& facts) {
    return {{"registers", facts.registers}, {"spill_bytes", facts.spill_bytes}, {"shared_bytes", facts.shared_bytes}};
}

std::vector<MoveHint> diagnose(const EvaluationOutcome& outcome) {
    std::vector<MoveHint> hints;
    using analysis::Rewrite;
    // 1. Micro-profiling findings: the parameter moves of their typed remedies, weighted by the
    //    estimated gain. Their prose is never read: rewording a message changes nothing here.
    for (const auto& f : outcome.findings)
        add_remedies(hints, f.remedies, 0.5 + std::clamp(f.estimated_gain, 0.0, 2.0), f.tool.empty() ? "finding" : f.tool);
    // 2. Compiler facts (no GPU needed).
    if (outcome.details.is_object() && outcome.details.contains("compiler")) {
        const auto& c = outcome.details["compiler"];
        long spills = c.value("spill_bytes", 0L);
        int registers = c.value("registers", 0);
        if (spills > 0) add_remedies(hints, analysis::fewer_registers(), 1.0, fmt::format("ptxas: {} bytes of register spills", spills));
        else if (registers > 64)
            add_remedies(hints, analysis::more_occupancy(Rewrite::reduce_register_pressure), std::min(1.0, (registers - 64) / 64.0 + 0.3),
                         fmt::format("ptxas: {} registers per thread limit occupancy", registers));
    }
    // 3. Roofline class, weakly, when nothing sharper was said.
    if (hints.empty() && outcome.correct()) {
        double fraction = outcome.roofline_fraction.value_or(0.0);
        const std::string& cls = outcome.roofline_class;
        const auto in_flight = analysis::more_in_flight(Rewrite::more_loads_in_flight);
        if (cls.find("memory") != std::string::npos && fraction < 0.7)
            add_remedies(hints, in_flight, 0.4, fmt::format("memory bound at {:.0f}% of the floor", 100 * fraction));
        else if (cls.find("latency") != std::string::npos) add_remedies(hints, in_flight, 0.5, "latency bound");
        else if (cls.find("compute") != std::string::npos) {
            add(hints, ParameterRole::block_size, +1, 0.3, "compute bound: bigger tiles");
            add(hints, ParameterRole::pipeline_depth, +1, 0.3, "compute bound: deeper pipeline");
        }
    }
    return hints;
}

std::vector<RankedMove> TunerProposer::rank_moves(const ProposalRequest& request, const TunableSpace& space,
                                                  const ParameterValues& point) const {
    std::vector<MoveHint> hints;
    if (request.node.evaluation) hints = diagnose(*request.node.evaluation);
    // A failed node (the tuner cannot repair source): step back from what broke it if we can tell.
    std::mt19937_64 rng(request.seed ^ 0x9e3779b97f4a7c15ULL);
    std::uniform_real_distribution<double> noise(0.0, 1.0);
    double jitter = hints.empty() ? 1.0 : options_.jitter;

    // Lessons: which (parameter, direction) paid off on this task.
    std::map<std::pair<std::string, int>, double> lesson_bonus;
    for (const auto& lesson : request.lessons) {
        if (lesson.change_kind != ProposalKind::parameter_move) continue;
        if (lesson.task_name != request.task.name) continue;
        // change_text begins "NAME from->to".
        auto space_pos = lesson.change_text.find(' ');
        auto arrow = lesson.change_text.find("->");
        if (space_pos == std::string::npos || arrow == std::string::npos || arrow < space_pos) continue;
        std::string name = lesson.change_text.substr(0, space_pos);
        std::string from = lesson.change_text.substr(space_pos + 1, arrow - space_pos - 1);
        auto end = lesson.change_text.find_first_of(" :", arrow + 2);
        std::string to = lesson.change_text.substr(arrow + 2, end == std::string::npos ? std::string::npos : end - arrow - 2);
        auto p = std::find_if(space.parameters.begin(), space.parameters.end(),
                              [&](const TunableParameter& q) { return q.name == name; });
        if (p == space.parameters.end()) continue;
        auto fi = std::find(p->values.begin(), p->values.end(), from);
        auto ti = std::find(p->values.begin(), p->values.end(), to);
        if (fi == p->values.end() || ti == p->values.end() || fi == ti) continue;
        int dir = ti > fi ? +1 : -1;
        double weight = lesson.scope == LessonScope::this_run ? 0.4 : 0.2;
        if (lesson.failure) lesson_bonus[{name, dir}] -= weight;
        else if (lesson.speedup_ratio && *lesson.speedup_ratio > 1.01) lesson_bonus[{name, dir}] += weight;
        else if (lesson.speedup_ratio && *lesson.speedup_ratio < 0.99) lesson_bonus[{name, dir}] -= weight;
    }

    // Momentum: the move that made this node keeps going while it pays off.
    if (!request.lineage.empty() && request.node.evaluation && request.node.evaluation->correct()) {
        const auto& parent = request.lineage.back();
        const std::string& text = request.node.rationale;
        auto space_pos = text.find(' ');
        auto arrow = text.find("->");
        if (space_pos != std::string::npos && arrow != std::string::npos && arrow > space_pos) {
            std::string name = text.substr(0, space_pos);
            std::string from = text.substr(space_pos + 1, arrow - space_pos - 1);
            auto end = text.find_first_of(" :", arrow + 2);
            std::string to = text.substr(arrow + 2, end == std::string::npos ? std::string::npos : end - arrow - 2);
            auto p = std::find_if(space.parameters.begin(), space.parameters.end(),
                                  [&](const TunableParameter& q) { return q.name == name; });
            if (p != space.parameters.end()) {
                auto fi = std::find(p->values.begin(), p->values.end(), from);
                auto ti = std::find(p->values.begin(), p->values.end(), to);
                if (fi != p->values.end() && ti != p->values.end() && fi != ti &&
                    request.node.speedup_over_baseline > parent.speedup_over_baseline * 1.01)
                    lesson_bonus[{name, ti > fi ? +1 : -1}] += 0.6;
            }
        }
    }
    if (hints.empty() && !lesson_bonus.empty()) jitter = 0.3;

    std::vector<RankedMove> ranked;
    for (const auto& param : space.parameters) {
        ParameterRole role = role_of(param.name);
        for (int dir : {+1, -1}) {
            double r = noise(rng);  // drawn for every candidate move, so the stream is stable
            auto move = step(space, point, param.name, dir);
            if (!move) continue;
            double score = jitter * r;
            std::vector<std::string> reasons;
            for (const auto& h : hints)
                if (h.role == role && h.direction == dir) {
                    score += h.weight;
                    if (std::find(reasons.begin(), reasons.end(), h.reason) == reasons.end()) reasons.push_back(h.reason);
                }
            auto bonus = lesson_bonus.find({param.name, dir});
            if (bonus != lesson_bonus.end()) {
                score += bonus->second;
                reasons.push_back(bonus->second > 0 ? "this direction paid off" : "this direction hurt earlier");
            }
            std::string why = reasons.empty() ? "exploration" : reasons.front();
            for (std::size_t i = 1; i < reasons.size() && i < 3; ++i) why += "; " + reasons[i];
            std::string rationale = fmt::format("{} {}->{}: {} ({} {})", param.name, move->from, move->to, why,
                                                parameter_role_name(role), dir > 0 ? "up" : "down");
            ranked.push_back({std::move(*move), score, std::move(rationale)});
        }
    }
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const RankedMove& a, const RankedMove& b) { return a.score > b.score; });
    return ranked;
}

Result<ProposalBatch> TunerProposer::propose(const ProposalRequest& request) {
    ProposalBatch batch;
    auto space = space_to_search(request);
    if (!space) return batch;  // nothing to tune: no proposals
    const auto& source = request.node.candidate.source;
    ParameterValues point = resolve_point(source, *space, request.node.candidate.params);

    std::lock_guard<std::mutex> lock(mutex_);
    std::set<std::string> tried;
    tried.insert(point_text(point));
    for (const auto& ancestor : request.lineage)
        tried.insert(point_text(resolve_point(ancestor.candidate.source, *space, ancestor.candidate.params)));
    const std::string prefix = proposal_scope(request);
    auto is_new = [&](const ParameterValues& p) {
        std::string text = point_text(p);
        // The run's own record (is_known) as well: a resumed run's tuner has not seen the points
        // its earlier sessions proposed.
        const bool known = request.is_known && request.is_known(Candidate{source, p});
        return !tried.count(text) && !proposed_.count(prefix + text) && !known;
    };
    // Moves are ranked by the time findings; under another objective the rationale says so, and
    // the search keeps whichever point wins on that objective.
    const std::string objective =
        request.objective.name == ObjectiveRule{}.name ? "" : " [optimizing " + request.objective.name + "]";
    auto take = [&](const ParameterValues& p, const std::string& rationale) {
        proposed_.insert(prefix + point_text(p));
        tried.insert(point_text(p));
        batch.proposals.push_back(parameter_move(source, p, rationale + objective));
    };

    for (const auto& move : rank_moves(request, *space, point)) {
        if (static_cast<int>(batch.proposals.size()) >= options_.proposals_per_call) break;
        if (is_new(move.move.point)) take(move.move.point, move.rationale);
    }
    if (batch.proposals.empty()) {
        // The neighbourhood is used up: a few random points of the space, seeded.
        std::mt19937_64 rng(request.seed * 0x2545F4914F6CDD1DULL + 17);
        for (int attempt = 0; attempt < 64 && static_cast<int>(batch.proposals.size()) < options_.exploration_per_call;
             ++attempt) {
            auto p = random_point(*space, rng);
            if (!p) break;
            for (const auto& [k, v] : point)
                if (!p->count(k)) (*p)[k] = v;
            if (is_new(*p)) take(*p, "exploration: random point " + point_text(*p) + " (neighbourhood exhausted)");
        }
    }
    return batch;
}

KP_REGISTER_PROPOSER(ProposerPlugin{
    "tuner", "profile-guided parameter moves over the kernel's kp:tune space (the default)",
    [](ProposerContext&) -> Result<std::unique_ptr<Proposer>> {
        return std::unique_ptr<Proposer>(std::make_unique<TunerProposer>());
    },
    nullptr, nullptr})

}  // namespace kp::search
