#include "profile/sass_program.h"

#include <algorithm>

namespace kp::profile {

std::string_view SassInstruction::base_opcode() const {
    std::string_view op = opcode;
    return op.substr(0, op.find('.'));
}

bool SassInstruction::has_modifier(std::string_view modifier) const {
    std::string_view op = opcode;
    size_t pos = op.find('.');
    while (pos != std::string_view::npos) {
        size_t next = op.find('.', pos + 1);
        std::string_view part = op.substr(pos + 1, next == std::string_view::npos ? std::string_view::npos : next - pos - 1);
        if (part == modifier) return true;
        pos = next;
    }
    return false;
}

std::string SassInstruction::text() const {
    std::string out;
    if (!predicate.empty()) out += predicate + " ";
    out += opcode;
    for (size_t i = 0; i < operands.size(); ++i) out += (i == 0 ? " " : ", ") + operands[i];
    return out;
}

const SassFunction* SassProgram::find(std::string_view mangled_name) const {
    for (const SassFunction& function : functions)
        if (function.name == mangled_name) return &function;
    return nullptr;
}

std::vector<std::string> split_sass_operands(std::string_view operands) {
    std::vector<std::string> parts;
    std::string current;
    int depth = 0;
    auto flush = [&] {
        size_t a = current.find_first_not_of(' ');
        size_t b = current.find_last_not_of(' ');
        if (a != std::string::npos) parts.push_back(current.substr(a, b - a + 1));
        current.clear();
    };
    // nvdisasm -json drops the comma before an address that opens with '[' ("R11[R14]" for
    // "R11, [R14]"); a register name (it has digits, or is RZ) directly before '[' starts a new operand.
    // Address prefixes such as "c[0x0]" and "desc[UR4]" have no digits and stay attached.
    auto is_register = [](const std::string& token) {
        if (token.find('[') != std::string::npos) return false;  // "c[0x0]" followed by "[0x28]"
        return token == "RZ" || token == "URZ" || std::any_of(token.begin(), token.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
    };
    for (char c : operands) {
        if (c == '[' && depth == 0 && is_register(current)) flush();
        if (c == '[' || c == '{') ++depth;
        if (c == ']' || c == '}') --depth;
        if (c == ',' && depth == 0) {
            flush();
            continue;
        }
        current.push_back(c);
    }
    flush();
    return parts;
}

}  // namespace kp::profile
