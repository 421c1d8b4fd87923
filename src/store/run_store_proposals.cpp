// RunStore: proposals and LLM exchanges.
#include "store/run_store.h"

#include "store/collect_rows.h"

namespace kp::store {

namespace {

const char* proposal_state_name(ProposalState state) {
    switch (state) {
        case ProposalState::queued: return "queued";
        case ProposalState::expanded: return "expanded";
        case ProposalState::duplicate: return "duplicate";
    }
    return "queued";
}

ProposalState parse_proposal_state(const std::string& text) {
    if (text == "expanded") return ProposalState::expanded;
    if (text == "duplicate") return ProposalState::duplicate;
    return ProposalState::queued;
}

}  // namespace

Status RunStore::add_proposals(std::int64_t run_id, std::int64_t parent_node_id,
                               std::vector<ProposalRecord>& proposals,
                               const std::vector<LlmExchangeRecord>& exchanges, std::int64_t proposer_calls,
                               std::int64_t proposer_exhausted) {
    auto transaction = SqliteTransaction::begin(database_);
    if (!transaction) return transaction.error();
    for (auto& proposal : proposals) {
        auto insert = database_.prepare(
            "INSERT INTO proposals (run_id, parent_node_id, kind, source, params_json, rationale, evaluation_key,"
            " state, child_node_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
        if (!insert) return insert.error();
        insert->bind(1, run_id).bind(2, parent_node_id).bind(3, proposal.kind).bind(4, proposal.source);
        insert->bind(5, proposal.params_json).bind(6, proposal.rationale).bind(7, proposal.evaluation_key);
        insert->bind(8, proposal_state_name(proposal.state)).bind(9, proposal.child_node_id);
        if (auto status = insert->run(); !status) return status.error();
        proposal.id = database_.last_insert_rowid();
        proposal.run_id = run_id;
        proposal.parent_node_id = parent_node_id;
    }
    for (const auto& exchange : exchanges)
        if (auto status = insert_llm_exchange(exchange); !status) return status.error();
    auto update = database_.prepare(
        "UPDATE nodes SET proposer_calls = ?, proposer_exhausted = ? WHERE run_id = ? AND node_id = ?");
    if (!update) return update.error();
    update->bind(1, proposer_calls).bind(2, proposer_exhausted).bind(3, run_id).bind(4, parent_node_id);
    if (auto status = update->run(); !status) return status.error();
    return transaction->commit();
}

Result<std::vector<ProposalRecord>> RunStore::load_proposals(std::int64_t run_id) {
    auto query = database_.prepare(
        "SELECT id, run_id, parent_node_id, kind, source, params_json, rationale, evaluation_key, state,"
        " child_node_id FROM proposals WHERE run_id = ? ORDER BY id");
    if (!query) return query.error();
    query->bind(1, run_id);
    return collect_rows<ProposalRecord>(*query, [](const SqliteStatement& row) {
        ProposalRecord proposal;
        proposal.id = row.column_int(0);
        proposal.run_id = row.column_int(1);
        proposal.parent_node_id = row.column_int(2);
        proposal.kind = row.column_text(3);
        proposal.source = row.column_text(4);
        proposal.params_json = row.column_text(5);
        proposal.rationale = row.column_text(6);
        proposal.evaluation_key = row.column_text(7);
        proposal.state = parse_proposal_state(row.column_text(8));
        proposal.child_node_id = row.column_optional_int(9);
        return proposal;
    });
}

Status RunStore::insert_llm_exchange(const LlmExchangeRecord& exchange) {
    auto insert = database_.prepare(
        "INSERT INTO llm_exchanges (run_id, node_id, agent, model, prompt, reply, tokens_in, tokens_out,"
        " latency_seconds, cost_usd, tool_calls) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!insert) return insert.error();
    insert->bind(1, exchange.run_id).bind(2, exchange.node_id).bind(3, exchange.agent).bind(4, exchange.model);
    insert->bind(5, exchange.prompt).bind(6, exchange.reply).bind(7, exchange.tokens_in).bind(8, exchange.tokens_out);
    insert->bind(9, exchange.latency_seconds).bind(10, exchange.cost_usd).bind(11, exchange.tool_calls);
    return insert->run();
}

Status RunStore::record_llm_exchange(const LlmExchangeRecord& exchange) { return insert_llm_exchange(exchange); }

Result<std::vector<LlmExchangeRecord>> RunStore::load_llm_exchanges(std::int64_t run_id) {
    auto query = database_.prepare(
        "SELECT run_id, node_id, agent, model, prompt, reply, tokens_in, tokens_out, latency_seconds, cost_usd,"
        " tool_calls FROM llm_exchanges WHERE run_id = ? ORDER BY id");
    if (!query) return query.error();
    query->bind(1, run_id);
    return collect_rows<LlmExchangeRecord>(*query, [](const SqliteStatement& row) {
        LlmExchangeRecord exchange;
        exchange.run_id = row.column_int(0);
        exchange.node_id = row.column_optional_int(1);
        exchange.agent = row.column_text(2);
        exchange.model = row.column_text(3);
        exchange.prompt = row.column_text(4);
        exchange.reply = row.column_text(5);
        exchange.tokens_in = row.column_int(6);
        exchange.tokens_out = row.column_int(7);
        exchange.latency_seconds = row.column_double(8);
        exchange.cost_usd = row.column_double(9);
        exchange.tool_calls = row.column_text(10);
        return exchange;
    });
}

Result<LlmTotals> RunStore::llm_totals(std::int64_t run_id) {
    auto query = database_.prepare(
        "SELECT count(*), coalesce(sum(tokens_in), 0), coalesce(sum(tokens_out), 0), coalesce(sum(cost_usd), 0)"
        " FROM llm_exchanges WHERE run_id = ?");
    if (!query) return query.error();
    query->bind(1, run_id);
    if (auto row = query->step(); !row) return row.error();
    return LlmTotals{query->column_int(0), query->column_int(1), query->column_int(2), query->column_double(3)};
}

}  // namespace kp::store
