#include "autoprofiler/learning_run.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "autoprofiler/catalogue.h"
#include "store/collect_rows.h"
#include "store/schema_migrations.h"

namespace kp::autoprofiler {

Result<LearningLog> LearningLog::open(const std::filesystem::path& path) {
    // The log is a run store (its tables are a schema migration): one file can hold the
    // optimization runs and the learning runs, and an older learning log is upgraded in place.
    auto db = store::SqliteDatabase::open(path, store::Durability::process_crash_safe);
    if (!db) return db.error();
    if (auto migrated = store::migrate(*db); !migrated) return migrated.error();
    return LearningLog(std::move(*db));
}

Result<std::int64_t> LearningLog::run_for(const std::string& name, const std::string& settings_json) {
    auto find = db_.prepare("SELECT id, settings FROM autoprofile_run WHERE name = ?");
    if (!find) return find.error();
    find->bind(1, name);
    auto row = find->step();
    if (!row) return row.error();
    if (*row) {
        if (find->column_text(1) != settings_json)
            return make_error(fmt::format("learning run '{}' exists with other settings ({}); use another --out or --store", name, find->column_text(1)));
        return find->column_int(0);
    }
    auto insert = db_.prepare("INSERT INTO autoprofile_run (name, settings) VALUES (?, ?)");
    if (!insert) return insert.error();
    insert->bind(1, name).bind(2, settings_json);
    if (auto s = insert->run(); !s) return s.error();
    return db_.last_insert_rowid();
}

Result<LearningLog::State> LearningLog::state(std::int64_t run_id) {
    auto q = db_.prepare("SELECT rounds_done, finished, tree FROM autoprofile_run WHERE id = ?");
    if (!q) return q.error();
    q->bind(1, run_id);
    auto row = q->step();
    if (!row) return row.error();
    if (!*row) return make_error(fmt::format("no learning run {}", run_id));
    return State{static_cast<int>(q->column_int(0)), q->column_int(1) != 0, q->column_optional_text(2)};
}

Status LearningLog::record_round(std::int64_t run_id, int round, const std::vector<ProposalRow>& rows,
                                 const std::optional<std::string>& accepted_tree, bool finished) {
    auto tx = store::SqliteTransaction::begin(db_);
    if (!tx) return tx.error();
    for (const auto& r : rows) {
        auto q = db_.prepare(
            "INSERT INTO autoprofile_proposal (run_id, round, proposer, kind, description, score, hit_rate, mean_seconds, mean_passes, accepted)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
        if (!q) return q.error();
        q->bind(1, run_id).bind(2, r.round).bind(3, r.proposer).bind(4, r.kind).bind(5, r.description).bind(6, r.score).bind(7, r.hit_rate);
        q->bind(8, r.mean_seconds).bind(9, r.mean_passes).bind(10, r.accepted ? 1 : 0);
        if (auto s = q->run(); !s) return s;
    }
    auto update = db_.prepare("UPDATE autoprofile_run SET rounds_done = ?, finished = ?, tree = COALESCE(?, tree) WHERE id = ?");
    if (!update) return update.error();
    update->bind(1, round).bind(2, finished ? 1 : 0).bind(3, accepted_tree).bind(4, run_id);
    if (auto s = update->run(); !s) return s;
    return tx->commit();
}

Result<std::vector<ProposalRow>> LearningLog::proposals(std::int64_t run_id) {
    auto q = db_.prepare(
        "SELECT round, proposer, kind, description, score, hit_rate, mean_seconds, mean_passes, accepted FROM autoprofile_proposal"
        " WHERE run_id = ? ORDER BY id");
    if (!q) return q.error();
    q->bind(1, run_id);
    return store::collect_rows<ProposalRow>(*q, [](const store::SqliteStatement& row) {
        return ProposalRow{static_cast<int>(row.column_int(0)), row.column_text(1), row.column_text(2), row.column_text(3), row.column_double(4),
                           row.column_double(5), row.column_double(6), row.column_double(7), row.column_int(8) != 0};
    });
}

Score score_tree(const ProfilingTree& tree, const std::vector<KernelRecord>& kernels, const CostTable& costs, const Objective& objective,
                 const Budget& budget) {
    std::vector<TreeOutcome> outcomes;
    outcomes.reserve(kernels.size());
    for (const auto& k : kernels) outcomes.push_back(evaluate_tree(tree, k, costs, budget, objective.reads_feedback()));
    return objective.score(kernels, outcomes, budget);
}

namespace {

std::vector<std::string> split_commas(const std::string& s) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start < s.size()) {
        size_t end = s.find(',', start);
        if (end == std::string::npos) end = s.size();
        if (end > start) out.push_back(s.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

}  // namespace

Result<LearningResult> learn_tree(const std::vector<KernelRecord>& train, const std::vector<KernelRecord>& held_out, const CostTable& costs,
                                  const Objective& objective, std::vector<Proposer*> proposers, const LearningSettings& settings,
                                  LearningLog& log, const std::string& run_name, int stop_after_rounds,
                                  const std::function<void(const std::string&)>& progress) {
    std::string names;
    for (const auto* p : proposers) names += (names.empty() ? "" : ",") + p->name();
    std::string kernels;
    for (const auto& k : train) kernels += (kernels.empty() ? "" : ",") + k.name;
    const nlohmann::json settings_json = {{"objective", objective.name()}, {"budget_seconds", settings.budget.seconds},
                                          {"budget_passes", settings.budget.passes}, {"max_rounds", settings.max_rounds},
                                          {"start", settings.start_actions}, {"proposers", names}, {"train", kernels}, {"gpu", costs.gpu}};
    auto run_id = log.run_for(run_name, settings_json.dump());
    if (!run_id) return run_id.error();
    auto state = log.state(*run_id);
    if (!state) return state.error();

    LearningResult result;
    result.tree = one_leaf_tree("learned", settings.start_actions == "all" ? action_catalogue() : split_commas(settings.start_actions));
    if (state->tree_toml) {
        auto tree = parse_tree(*state->tree_toml, "learning log");
        if (!tree) return tree.error();
        result.tree = std::move(*tree);
    }
    result.resumed_from_round = state->rounds_done;
    int round = state->rounds_done;
    Score current = score_tree(result.tree, train, costs, objective, settings.budget);
    if (!current.error.empty()) return make_error(objective.name() + ": " + current.error);
    bool finished = state->finished;
    for (int this_call = 0; !finished && round < settings.max_rounds && this_call != stop_after_rounds; ++this_call) {
        ++round;
        std::vector<TreeOutcome> outcomes;
        for (const auto& k : train) outcomes.push_back(evaluate_tree(result.tree, k, costs, settings.budget, false));
        ProposalContext context{result.tree, train, outcomes, costs, settings.budget};
        std::vector<ProposalRow> rows;
        std::optional<Edit> best;
        Score best_score = current;
        size_t best_row = 0;
        for (Proposer* p : proposers) {
            auto edits = p->propose(context);
            if (!edits) return edits.error();
            for (auto& e : *edits) {
                Score s = score_tree(e.tree, train, costs, objective, settings.budget);
                if (!s.error.empty()) return make_error(objective.name() + ": " + s.error);
                rows.push_back({round, p->name(), e.kind, e.description, s.value, s.hit_rate, s.mean_seconds, s.mean_passes, false});
                // Strictly better only; ties keep the first proposed (deterministic order).
                if (s.value > best_score.value + 1e-9) {
                    best_score = s;
                    best = std::move(e);
                    best_row = rows.size() - 1;
                }
            }
        }
        std::optional<std::string> accepted;
        if (best) {
            rows[best_row].accepted = true;
            result.tree = std::move(best->tree);
            result.tree.name = "learned";
            current = best_score;
            accepted = to_toml(result.tree);
            if (progress)
                progress(fmt::format("round {}: accepted {} ({}), objective {:.4f}, hit rate {:.3f}, {:.2f} passes", round, rows[best_row].kind,
                                     rows[best_row].description, current.value, current.hit_rate, current.mean_passes));
        } else if (progress) {
            progress(fmt::format("round {}: none of {} proposals improves {:.4f}; done", round, rows.size(), current.value));
        }
        finished = !best || round >= settings.max_rounds;
        if (auto s = log.record_round(*run_id, round, rows, accepted, finished); !s) return s.error();
    }
    auto all = log.proposals(*run_id);
    if (!all) return all.error();
    result.proposals = static_cast<int>(all->size());
    for (const auto& r : *all) result.accepted += r.accepted;
    result.rounds = round;
    result.train = current;
    result.held_out = score_tree(result.tree, held_out, costs, objective, settings.budget);
    if (!result.held_out.error.empty()) return make_error(objective.name() + " (held out): " + result.held_out.error);
    return result;
}

}  // namespace kp::autoprofiler
