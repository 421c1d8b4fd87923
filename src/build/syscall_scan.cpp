#include "build/syscall_scan.h"

#include <algorithm>
#include <cstdint>
#include <regex>
#include <sstream>

#include "common/process.h"

namespace kp {

namespace {

struct Span {
    uint64_t begin = 0, end = 0;
    bool overlaps(const Span& o) const { return begin < o.end && o.begin < end; }
};

// LOAD segments with the E flag: "  LOAD 0x001000 0x...1000 0x...1000 0x000141 0x000141 R E 0x1000".
std::vector<Span> executable_segments(const std::string& readelf_segments) {
    std::vector<Span> spans;
    std::istringstream lines(readelf_segments);
    for (std::string line; std::getline(lines, line);) {
        std::istringstream f(line);
        std::string type, offset, vaddr, paddr, filesz, memsz;
        if (!(f >> type >> offset >> vaddr >> paddr >> filesz >> memsz) || type != "LOAD") continue;
        std::vector<std::string> rest;  // the flags ("R E"), then the alignment
        for (std::string t; f >> t;) rest.push_back(t);
        if (rest.empty() || std::find(rest.begin(), rest.end() - 1, "E") == rest.end() - 1) continue;
        uint64_t start = std::stoull(vaddr, nullptr, 16);
        spans.push_back({start, start + std::stoull(memsz, nullptr, 16)});
    }
    return spans;
}

}  // namespace

std::vector<std::string> executable_section_names(const std::string& readelf_sections, const std::string& readelf_segments) {
    std::vector<Span> code = executable_segments(readelf_segments);
    std::vector<std::string> names;
    std::istringstream lines(readelf_sections);
    for (std::string line; std::getline(lines, line);) {
        // "  [11] .kp_hidden  PROGBITS  0000000000001130 001130 000006 00  AX  0   0 16" (Flg may be empty)
        auto close = line.find(']');
        if (line.find('[') == std::string::npos || close == std::string::npos) continue;
        std::istringstream f(line.substr(close + 1));
        std::string name, type, address, offset, size, entry_size;
        if (!(f >> name >> type >> address >> offset >> size >> entry_size) || type == "NOBITS" || type == "NULL") continue;
        std::vector<std::string> rest;
        for (std::string t; f >> t;) rest.push_back(t);
        std::string flags = rest.size() == 4 ? rest[0] : "";
        uint64_t begin = 0, length = 0;
        try {
            begin = std::stoull(address, nullptr, 16);
            length = std::stoull(size, nullptr, 16);
        } catch (...) {
            continue;  // a header line
        }
        if (length == 0 || flags.find('A') == std::string::npos) continue;
        Span span{begin, begin + length};
        bool in_code = flags.find('X') != std::string::npos ||
                       std::any_of(code.begin(), code.end(), [&](const Span& s) { return s.overlaps(span); });
        if (in_code) names.push_back(name);
    }
    return names;
}

std::optional<GuardViolation> find_system_call_instruction(const std::filesystem::path& library) {
    if (!find_executable("objdump") || !find_executable("readelf")) return std::nullopt;
    auto sections = run_process({"readelf", "-SW", library.string()});
    auto segments = run_process({"readelf", "-lW", library.string()});
    if (!sections.ok() || !segments.ok() || !sections->succeeded() || !segments->succeeded()) return std::nullopt;
    std::vector<std::string> argv{"objdump", "-D", "--no-show-raw-insn"};
    for (const auto& name : executable_section_names(sections->stdout_text, segments->stdout_text)) {
        argv.push_back("-j");
        argv.push_back(name);
    }
    if (argv.size() == 3) return std::nullopt;
    argv.push_back(library.string());
    auto disassembly = run_process(argv);
    if (!disassembly.ok() || !disassembly->succeeded()) return std::nullopt;
    static const std::regex syscall_insn(R"(\t(syscall|sysenter|int\s+\$0x80)\b)");
    static const std::regex section_header(R"(^Disassembly of section (\S+):)");
    std::string section = "?";
    std::istringstream lines(disassembly->stdout_text);
    for (std::string line; std::getline(lines, line);) {
        std::smatch m;
        if (std::regex_search(line, m, section_header)) section = m[1].str();
        else if (std::regex_search(line, m, syscall_insn))
            return GuardViolation{std::regex_replace(m[1].str(), std::regex(R"(\s+)"), " ") + " instruction in section " + section,
                                  "raw system call in host code"};
    }
    return std::nullopt;
}

}  // namespace kp
