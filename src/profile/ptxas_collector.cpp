#include "profile/ptxas_collector.h"

#include "common/files.h"

namespace kp::profile {

Result<PtxasReport> PtxasCollector::collect(const std::filesystem::path& log) const {
    auto text = read_text_file(log);
    if (!text) return text.error();
    auto report = parse_ptxas_report(*text);
    if (!report) return make_error(log.string() + ": " + report.error().message);
    return report;
}

}  // namespace kp::profile
