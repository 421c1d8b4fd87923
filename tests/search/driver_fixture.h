// Test helpers for driving whole searches: a temporary run store and a one-call search.
#pragma once

#include <gtest/gtest.h>

#include <optional>

#include "../store/temp_store.h"
#include "search/search_driver.h"
#include "synthetic_landscape.h"

namespace kp::search::synthetic {

// Process-crash-safe durability: what the kill -9 tests need, without an fsync per evaluation.
inline store::RunStore open_store(const std::filesystem::path& path) {
    auto opened = store::RunStore::open(path, store::Durability::process_crash_safe);
    if (!opened) throw std::runtime_error(opened.error().message);
    return std::move(*opened);
}

inline const TaskIdentity kTask{"synthetic", "fingerprint-1"};
inline const Candidate kBaseline{"root", {}};

// A config for synthetic landscapes: no roofline early stop unless a test asks for one.
inline SearchConfig test_config(std::int64_t evaluations, std::uint64_t seed = 1) {
    SearchConfig config;
    config.seed = seed;
    config.stop_limits = {{"evaluation_budget", static_cast<double>(evaluations)}};
    return config;
}

// A compact, comparable description of a tree: one line per node, in creation order.
inline std::vector<std::string> describe_tree(const SearchTree& tree) {
    std::vector<std::string> lines;
    for (const auto& node : tree.nodes()) {
        std::string line = std::to_string(node.id) + " parent=" + (node.parent ? std::to_string(*node.parent) : "-") +
                           " " + node.candidate.source + " " +
                           (node.outcome ? status_class_name(node.outcome->status) : "pending") +
                           " visits=" + std::to_string(node.visits) + " closed=" + node.close_reason;
        lines.push_back(line);
    }
    return lines;
}

}  // namespace kp::search::synthetic
