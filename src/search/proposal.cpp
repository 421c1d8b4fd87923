#include "search/proposal.h"

namespace kp::search {

const char* proposal_kind_name(ProposalKind kind) {
    return kind == ProposalKind::rewrite ? "rewrite" : "parameter_move";
}

std::optional<ProposalKind> parse_proposal_kind(const std::string& text) {
    if (text == "parameter_move") return ProposalKind::parameter_move;
    if (text == "rewrite") return ProposalKind::rewrite;
    return std::nullopt;
}

}  // namespace kp::search
