#include "cli/common_options.h"

#include <ctime>

#include <regex>

namespace kp::cli {

Result<ParameterValues> parse_parameter_values(const std::vector<std::string>& assignments) {
    static const std::regex assignment(R"(([A-Za-z_][A-Za-z0-9_]*)=(\S+))");
    ParameterValues values;
    for (const auto& a : assignments) {
        std::smatch m;
        if (!std::regex_match(a, m, assignment)) return make_error("expected NAME=VALUE, got '" + a + "'");
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

}  // namespace kp::cli
