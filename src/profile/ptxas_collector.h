// Reads a saved ptxas -v log (the build step keeps nvcc's stderr) into a PtxasReport. Free: no
// process, no GPU.
#pragma once

#include <filesystem>

#include "common/result.h"
#include "profile/collector.h"
#include "profile/ptxas_report.h"

namespace kp::profile {

class PtxasCollector {
public:
    static constexpr const char* name() { return "ptxas"; }
    CollectorCost cost() const { return CollectorCost{0, 0.0}; }
    Result<PtxasReport> collect(const std::filesystem::path& log) const;
};

}  // namespace kp::profile
