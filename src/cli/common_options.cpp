#include "cli/common_options.h"

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

}  // namespace kp::cli
