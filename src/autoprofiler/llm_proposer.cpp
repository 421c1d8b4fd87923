// The LLM proposer (tree_edit.h): the model sees the tree, the catalogues with costs and how each
// training kernel fared, and answers with one edited tree in a ```toml block.
#include <sstream>

#include <fmt/format.h>

#include "autoprofiler/catalogue.h"
#include "autoprofiler/objective.h"
#include "autoprofiler/tree_edit.h"
#include "llm/code_extraction.h"

namespace kp::autoprofiler {

std::string llm_proposal_prompt(const ProposalContext& c) {
    std::ostringstream out;
    out << "You refine a deterministic GPU profiling tree (format " << kTreeFormat << "). Internal nodes test one signal "
        << "(signal >= threshold goes to `above`, else `below`; a measured signal needs its action in `collect` on the path); "
        << "leaves list `actions` and how many findings to show. Propose ONE edit: REWRITE (change a leaf's actions or "
        << "max_findings, or a test's threshold) or SPLIT (turn a leaf into a test with two leaves). Goal: each kernel's feedback "
        << "names its real flaw (healthy kernels: no finding), at the least profiling cost. Budget: "
        << (c.budget.passes < (1 << 20) ? fmt::format("{} replay passes", c.budget.passes) : fmt::format("{} s", c.budget.seconds))
        << "; actions that do not fit are dropped in order.\n\nSignals:\n";
    for (const auto& s : signal_catalogue()) out << "- " << s.name << (s.needs.empty() ? "" : " (needs " + s.needs + ")") << ": " << s.description << "\n";
    out << fmt::format("\nCosts: a profile that runs anything on the GPU pays {:.3f} s to start its worker and {:.3f} s per counter "
                       "collection, plus {:.4f} s per replay pass. A tree without a test counts the roofline and its tools in one "
                       "collection; a tree with a test always counts the roofline first, then its leaf's counters in a second. "
                       "Counters share passes: a collection's passes are fewer than the sum of its actions'.\n",
                       c.costs.process_seconds, c.costs.collection_seconds, c.costs.seconds_per_pass);
    out << "\nActions alone (seconds, passes; a tool's beyond the roofline's):\n";
    for (const auto& a : action_catalogue()) out << fmt::format("- {} ({:.3f} s, {} passes)\n", a, c.costs.of(a).seconds, c.costs.of(a).passes);
    out << "\nCurrent tree:\n```toml\n" << to_toml(c.tree) << "```\n\nOutcomes on the training kernels:\n";
    for (size_t i = 0; i < c.train.size(); ++i) {
        const auto& k = c.train[i];
        const auto& o = c.outcomes[i];
        std::string shown;
        for (const auto& f : o.findings) shown += (shown.empty() ? "" : ",") + f.tool;
        std::string signals;
        for (const auto& [name, value] : k.signals) signals += fmt::format(" {}={:.3g}", name, value);
        out << fmt::format("- {}: flaw {}, leaf {}, shown [{}], {} , {} passes, {:.2f} s;{}\n", k.name, k.expect, o.leaf, shown,
                           is_hit(k, o) ? "HIT" : "MISS", o.cost.passes, o.cost.seconds, signals);
    }
    out << "\nReply with the whole edited tree in one ```toml block.\n";
    return out.str();
}

namespace {

class LlmProposer : public Proposer {
public:
    explicit LlmProposer(std::shared_ptr<llm::ChatClient> client) : client_(std::move(client)) {}
    std::string name() const override { return "llm"; }

    Result<std::vector<Edit>> propose(const ProposalContext& c) override {
        llm::ChatRequest request;
        request.purpose = "autoprofiler";
        request.messages.push_back({"user", llm_proposal_prompt(c)});
        auto reply = client_->complete(request);
        if (!reply) return make_error("LLM proposer (" + client_->describe() + "): " + reply.error().message);
        for (const auto& block : llm::find_code_blocks(reply->text)) {
            if (block.language != "toml") continue;
            auto tree = parse_tree(block.code, "LLM reply");
            // An invalid tree is a rejected proposal, not a failed run: the learner records nothing
            // for it and the next round asks again.
            if (!tree) return std::vector<Edit>{};
            // A measured cost is a measurement, not a proposal: a tree that states its own would
            // set what it is charged.
            for (const auto& [name, node] : tree->nodes)
                if (node.measured_cost) return std::vector<Edit>{};
            auto leaves = [](const ProfilingTree& t) {
                int n = 0;
                for (const auto& [name, node] : t.nodes) n += node.is_leaf();
                return n;
            };
            const bool split = leaves(*tree) > leaves(c.tree);
            return std::vector<Edit>{{split ? "SPLIT" : "REWRITE", "LLM: " + std::to_string(tree->nodes.size()) + " nodes", std::move(*tree)}};
        }
        return std::vector<Edit>{};
    }

private:
    std::shared_ptr<llm::ChatClient> client_;
};

}  // namespace

std::unique_ptr<Proposer> llm_proposer(std::shared_ptr<llm::ChatClient> client) { return std::make_unique<LlmProposer>(std::move(client)); }

}  // namespace kp::autoprofiler
