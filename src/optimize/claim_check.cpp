#include "optimize/claim_check.h"

#include "analysis/tools/unbacked_hardware_claims.h"
#include "common/files.h"
#include "profile/sass_collector.h"

namespace kp::optimize {

ClaimCheck check_hardware_claims(const std::string& source, const std::string& rationale, const std::filesystem::path& library,
                                 const std::string& build_key, const std::string& source_name) {
    ClaimCheck check;
    check.claims = analysis::find_hardware_claims(source, source_name, /*number_lines=*/true);
    for (auto& claim : analysis::find_hardware_claims(rationale, "rationale", /*number_lines=*/false)) {
        bool seen = false;  // a feature the source claims already is judged once
        for (const auto& c : check.claims) seen = seen || c.feature == claim.feature;
        if (!seen) check.claims.push_back(std::move(claim));
    }
    if (check.claims.empty()) return check;
    profile::SassCollector collector({}, {}, profile::CollectorCache(cache_directory() / "profile"));
    profile::SassRequest request;
    request.binary = library;
    request.cache_key = build_key;
    auto sass = collector.collect(request);
    if (!sass) {
        check.error = sass.error().message;
        return check;
    }
    std::vector<const profile::SassFunction*> functions;
    for (const auto& cubin : sass->cubins)
        for (const auto& f : cubin.program.functions) functions.push_back(&f);
    check.unbacked = analysis::unbacked_claims(check.claims, analysis::count_opcodes(functions));
    return check;
}

nlohmann::json ClaimCheck::to_json() const {
    auto list = [](const std::vector<analysis::HardwareClaim>& claims) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& c : claims) out.push_back({{"feature", c.feature}, {"where", c.where}, {"words", c.words}});
        return out;
    };
    nlohmann::json j = {{"claims", list(claims)}, {"unbacked", list(unbacked)}};
    if (!error.empty()) j["error"] = error;
    return j;
}

std::optional<analysis::Finding> ClaimCheck::finding() const {
    if (unbacked.empty()) return std::nullopt;
    return analysis::unbacked_claims_finding(unbacked, "none of the candidate's kernels shows it in its SASS");
}

}  // namespace kp::optimize
