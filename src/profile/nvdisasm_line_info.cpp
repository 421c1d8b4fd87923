#include "profile/nvdisasm_line_info.h"

#include <regex>
#include <sstream>

namespace kp::profile {

Result<LineInfoTable> parse_nvdisasm_line_info(std::string_view text) {
    static const std::regex file_line(R"re(//## File "([^"]*)", line (\d+))re");
    static const std::regex instruction(R"re(^\s*/\*([0-9a-fA-F]+)\*/\s+(.*?)\s*;)re");
    // A function label: "_Z9copy_vec4PK6float4PS_m:" or "$__internal_0_$__cuda_sm20_rem_u64:";
    // section (".text.X:") and local (".L_x_3:") labels start with a dot.
    static const std::regex label(R"re(^([A-Za-z_$][A-Za-z0-9_$.]*):\s*$)re");

    LineInfoTable table;
    std::string function;
    std::optional<SourceLocation> location;
    std::istringstream lines{std::string(text)};
    std::string line;
    std::smatch match;
    while (std::getline(lines, line)) {
        if (std::regex_search(line, match, file_line)) {
            location = SourceLocation{match[1].str(), std::stoi(match[2].str())};
            continue;
        }
        if (std::regex_match(line, match, label)) {
            function = match[1].str();
            location.reset();  // each function's first instruction carries its own //## File line
            table[function];
            continue;
        }
        if (!function.empty() && std::regex_search(line, match, instruction)) {
            LineInfoEntry entry;
            entry.offset = std::stoull(match[1].str(), nullptr, 16);
            entry.sass = match[2].str();
            size_t first = entry.sass.find_first_not_of(' ');
            entry.sass = first == std::string::npos ? "" : entry.sass.substr(first);
            entry.location = location;
            table[function].push_back(std::move(entry));
        }
    }
    if (table.empty()) return make_error("nvdisasm -c -g: no function labels found");
    return table;
}

size_t attach_line_info(SassProgram& program, const LineInfoTable& table) {
    size_t attached = 0;
    for (SassFunction& function : program.functions) {
        auto it = table.find(function.name);
        if (it == table.end()) continue;
        std::map<std::uint64_t, const SourceLocation*> by_offset;
        for (const LineInfoEntry& entry : it->second)
            if (entry.location) by_offset[entry.offset] = &*entry.location;
        for (SassInstruction& instruction : function.instructions) {
            auto found = by_offset.find(instruction.offset);
            if (found == by_offset.end()) continue;
            instruction.location = *found->second;
            ++attached;
        }
    }
    return attached;
}

}  // namespace kp::profile
