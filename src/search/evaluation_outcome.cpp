#include "search/evaluation_outcome.h"

#include <algorithm>
#include <array>
#include <utility>

#include "analysis/feedback.h"

namespace kp::search {

namespace {
constexpr std::array<std::pair<StatusClass, const char*>, 9> kStatusNames = {{
    {StatusClass::ok, "ok"},
    {StatusClass::compile_error, "compile_error"},
    {StatusClass::rejected_by_guard, "rejected_by_guard"},
    {StatusClass::crash, "crash"},
    {StatusClass::timeout, "timeout"},
    {StatusClass::out_of_memory, "out_of_memory"},
    {StatusClass::incorrect, "incorrect"},
    {StatusClass::invalid_timing, "invalid_timing"},
    {StatusClass::rejected_by_sandbox, "rejected_by_sandbox"},
}};

template <typename T>
void put_optional(nlohmann::json& object, const char* name, const std::optional<T>& value) {
    if (value) object[name] = *value;
}

template <typename T>
std::optional<T> get_optional(const nlohmann::json& object, const char* name) {
    if (!object.contains(name) || object[name].is_null()) return std::nullopt;
    return object[name].get<T>();
}
}  // namespace

const char* status_class_name(StatusClass status) {
    for (const auto& [value, name] : kStatusNames)
        if (value == status) return name;
    return "crash";
}

std::optional<StatusClass> parse_status_class(const std::string& text) {
    for (const auto& [value, name] : kStatusNames)
        if (text == name) return value;
    return std::nullopt;
}

std::vector<std::string> EvaluationOutcome::tool_names() const {
    std::vector<std::string> names;
    for (const auto& finding : findings) names.push_back(finding.tool);
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
}

nlohmann::json outcome_to_json(const EvaluationOutcome& outcome) {
    nlohmann::json object;
    object["status"] = status_class_name(outcome.status);
    put_optional(object, "median_seconds", outcome.median_seconds);
    put_optional(object, "speedup", outcome.speedup);
    put_optional(object, "roofline_fraction", outcome.roofline_fraction);
    put_optional(object, "joules_per_call", outcome.joules_per_call);
    object["roofline_class"] = outcome.roofline_class;
    object["findings"] = nlohmann::json::array();
    for (const auto& finding : outcome.findings) object["findings"].push_back(analysis::to_json(finding));
    object["findings_summary"] = outcome.findings_summary;
    object["message"] = outcome.message;
    object["details"] = outcome.details;
    return object;
}

Result<EvaluationOutcome> outcome_from_json(const std::string& text) {
    auto object = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (object.is_discarded() || !object.is_object()) return make_error("evaluation outcome is not a JSON object");
    try {
        EvaluationOutcome outcome;
        auto status = parse_status_class(object.value("status", ""));
        if (!status) return make_error("unknown evaluation status '" + object.value("status", "") + "'");
        outcome.status = *status;
        outcome.median_seconds = get_optional<double>(object, "median_seconds");
        outcome.speedup = get_optional<double>(object, "speedup");
        outcome.roofline_fraction = get_optional<double>(object, "roofline_fraction");
        outcome.joules_per_call = get_optional<double>(object, "joules_per_call");
        outcome.roofline_class = object.value("roofline_class", "");
        for (const auto& finding : object.value("findings", nlohmann::json::array())) {
            auto parsed = analysis::finding_from_json(finding);
            if (!parsed) return parsed.error();
            outcome.findings.push_back(std::move(*parsed));
        }
        outcome.findings_summary = object.value("findings_summary", "");
        outcome.message = object.value("message", "");
        outcome.details = object.value("details", nlohmann::json::object());
        return outcome;
    } catch (const nlohmann::json::exception& error) {
        return make_error(std::string("malformed evaluation outcome: ") + error.what());
    }
}

}  // namespace kp::search
