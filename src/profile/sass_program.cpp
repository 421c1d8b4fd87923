#include "profile/sass_program.h"

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
    for (char c : operands) {
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
