#include "search/candidate.h"

#include "build/tunables.h"
#include "common/hash.h"
#include "search/proposers/parameter_space.h"

namespace kp::search {

std::string evaluation_key(const TaskIdentity& task, const Candidate& candidate) {
    Sha256 hash;
    hash.add("kernelpro-evaluation-v1").add(task.name).add(task.fingerprint).add(candidate.source);
    // A kp:tune parameter left out means the source's own #define: the same experiment as naming
    // that value (the baseline has no params; a proposer names every parameter of its points).
    ParameterValues params = candidate.params;
    if (auto space = parse_tunables(candidate.source); space.ok())
        for (const auto& p : space->parameters)
            if (!params.count(p.name))
                if (auto value = source_define_default(candidate.source, p.name)) params[p.name] = *value;
    for (const auto& [name, value] : params) hash.add(name).add(value);
    return hash.hex();
}

nlohmann::json params_to_json(const ParameterValues& params) {
    nlohmann::json object = nlohmann::json::object();
    for (const auto& [name, value] : params) object[name] = value;
    return object;
}

Result<ParameterValues> params_from_json(const std::string& text) {
    auto parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded() || !parsed.is_object()) return make_error("parameters are not a JSON object: " + text);
    ParameterValues params;
    for (const auto& [name, value] : parsed.items())
        params[name] = value.is_string() ? value.get<std::string>() : value.dump();
    return params;
}

}  // namespace kp::search
