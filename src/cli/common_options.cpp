#include "cli/common_options.h"

#include <cstdlib>
#include <ctime>

#include <algorithm>
#include <cmath>
#include <regex>

#include <fmt/format.h>

#include "common/files.h"
#include "common/utf8.h"
#include "gpu/cuda_driver.h"

namespace kp::cli {

Result<ParameterValues> parse_parameter_values(const std::vector<std::string>& assignments) {
    static const std::regex assignment(R"(([A-Za-z_][A-Za-z0-9_]*)=([\x21-\x7E]+))");
    ParameterValues values;
    for (const auto& a : assignments) {
        std::smatch m;
        if (!std::regex_match(a, m, assignment))
            return make_error("-D expects NAME=VALUE (printable ASCII, no spaces), got '" + valid_utf8(a) + "'");
        values[m[1].str()] = m[2].str();
    }
    return values;
}

std::string utc_stamp() {
    std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
    return buf;
}

namespace {

std::string declared_names(const TunableSpace& space) {
    std::string names;
    for (const auto& p : space.parameters) names += (names.empty() ? "" : ", ") + p.name;
    return names.empty() ? "none" : names;
}

}  // namespace

Result<ParameterValues> candidate_parameter_values(const std::filesystem::path& candidate,
                                                   const std::vector<std::string>& assignments) {
    auto values = parse_parameter_values(assignments);
    if (!values.ok()) return values.error();
    auto source = read_text_file(candidate);
    if (!source.ok()) return source.error();
    const std::string file = path_text(candidate);
    auto space = parse_tunables(*source);
    if (!space.ok()) return make_error(file + ": " + space.error().message);
    for (const auto& [name, value] : *values) {
        auto declared = std::find_if(space->parameters.begin(), space->parameters.end(),
                                     [&](const TunableParameter& p) { return p.name == name; });
        if (declared == space->parameters.end())
            return make_error(fmt::format("-D {}: {} declares no such kp:tune parameter (declared: {})", name, file,
                                          declared_names(*space)));
        if (std::find(declared->values.begin(), declared->values.end(), value) == declared->values.end()) {
            std::string allowed;
            for (const auto& v : declared->values) allowed += (allowed.empty() ? "" : ",") + v;
            return make_error(fmt::format("-D {}={}: not a value {} declares for {} ({})", name, value, file, name, allowed));
        }
    }
    // Constraints over parameters not given cannot be judged here; the others must hold.
    bool all_given = std::all_of(space->parameters.begin(), space->parameters.end(),
                                 [&](const TunableParameter& p) { return values->count(p.name) > 0; });
    if (all_given && !space->parameters.empty() && !satisfies_constraints(*space, *values))
        return make_error(file + ": the -D values break a kp:constraint line of the candidate");
    return values;
}

Status require_usable_gpu() {
    // A worker put in kernelpro-worker's place (KERNELPRO_WORKER: a test double, a remote shim)
    // answers for its own device: its `hello` or its failure before it says whether there is one.
    if (const char* worker = std::getenv("KERNELPRO_WORKER"); worker && *worker) return {};
    auto driver = gpu::CudaDriver::load();
    if (!driver.ok()) return driver.error();
    auto count = driver->device_count();
    if (!count.ok()) return make_error("no GPU: " + count.error().message);
    if (*count == 0) return make_error("no GPU: the driver reports no CUDA devices");
    return {};
}

CLI::Validator finite_at_least(double minimum) {
    return CLI::Validator(
        [minimum](std::string& text) -> std::string {
            double value = 0;
            size_t used = 0;
            try {
                value = std::stod(text, &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (used != text.size() || !std::isfinite(value) || value < minimum)
                return fmt::format("must be a finite number >= {}, got '{}'", minimum, valid_utf8(text));
            return {};
        },
        fmt::format("NUMBER >= {}", minimum));
}

}  // namespace kp::cli
