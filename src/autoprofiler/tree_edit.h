// The learner's edits and who proposes them. REWRITE changes one leaf's actions or rendering, or
// one test's threshold; SPLIT turns a leaf into a test on a signal with two leaves. A Proposer
// returns candidate trees (already edited and valid); the learner scores and picks.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "autoprofiler/kernel_record.h"
#include "autoprofiler/profiling_tree.h"
#include "autoprofiler/tree_evaluation.h"
#include "llm/chat_client.h"

namespace kp::autoprofiler {

struct Edit {
    std::string kind;         // "REWRITE" or "SPLIT"
    std::string description;  // one line: what changed
    ProfilingTree tree;       // the whole tree after the edit
};

// What a proposer may look at: the current tree, its outcomes on the training kernels, the costs.
struct ProposalContext {
    const ProfilingTree& tree;
    const std::vector<KernelRecord>& train;
    const std::vector<TreeOutcome>& outcomes;
    const CostTable& costs;
    const Budget& budget;
};

class Proposer {
public:
    virtual ~Proposer() = default;
    virtual std::string name() const = 0;
    virtual Result<std::vector<Edit>> propose(const ProposalContext& context) = 0;
};

// Every single edit over the catalogues (no LLM): per leaf, add or remove one action, change
// max_findings; per test, move its threshold; SPLIT a leaf on each signal at the midpoints
// between the training kernels' values, one child with one more action. A test on a measured
// signal collects its action at the new node (the children then no longer list it).
std::unique_ptr<Proposer> enumerative_proposer(int max_leaves = 8);

// Asks a chat model (any kernelpro provider, or a script / recording) for one edited tree: the
// prompt holds the tree, the catalogues with costs and each training kernel's outcome; the reply's
// ```toml block is parsed and validated like a tree file. Kind: SPLIT when it has more leaves.
std::unique_ptr<Proposer> llm_proposer(std::shared_ptr<llm::ChatClient> client);

// The LLM proposer's prompt (public for the test that checks what the model is shown).
std::string llm_proposal_prompt(const ProposalContext& context);

}  // namespace kp::autoprofiler
