#include "profile/ptxas_report.h"

#include <regex>
#include <sstream>

namespace kp::profile {
namespace {

long to_long(const std::ssub_match& m) { return std::stol(m.str()); }

}  // namespace

const PtxasFunction* PtxasReport::find(std::string_view mangled_name) const {
    for (const PtxasFunction& f : functions)
        if (f.name == mangled_name) return &f;
    return nullptr;
}

Result<PtxasReport> parse_ptxas_report(std::string_view text) {
    static const std::regex compiling(R"re(Compiling (entry function|function) '([^']+)' for '([^']+)')re");
    static const std::regex properties(R"re(Function properties for (\S+))re");
    static const std::regex frame(R"re((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)re");
    static const std::regex used(R"re(Used (\d+) registers)re");
    static const std::regex barriers(R"re(used (\d+) barriers)re");
    static const std::regex smem(R"re((\d+) bytes smem)re");
    static const std::regex cumulative(R"re((\d+) bytes cumulative stack size)re");
    static const std::regex cmem(R"re((\d+) bytes cmem\[0\])re");
    static const std::regex compile_time(R"re(Compile time = ([0-9.]+) ms)re");
    static const std::regex gmem(R"re(ptxas info\s*:\s*(\d+) bytes gmem)re");

    PtxasReport report;
    PtxasFunction* current = nullptr;
    auto function_named = [&](const std::string& name) -> PtxasFunction* {
        for (PtxasFunction& f : report.functions)
            if (f.name == name) return &f;
        report.functions.push_back(PtxasFunction{});
        report.functions.back().name = name;
        return &report.functions.back();
    };

    std::istringstream lines{std::string(text)};
    std::string line;
    std::smatch m;
    bool saw_ptxas = false;
    while (std::getline(lines, line)) {
        if (line.find("ptxas") != std::string::npos) saw_ptxas = true;
        if (line.find("ptxas warning") != std::string::npos) report.warnings.push_back(line);
        if (std::regex_search(line, m, gmem)) { report.global_bytes = to_long(m[1]); continue; }
        if (std::regex_search(line, m, compiling)) {
            current = function_named(m[2].str());
            current->entry = m[1].str() == "entry function";
            current->arch = m[3].str();
            continue;
        }
        if (std::regex_search(line, m, properties)) { current = function_named(m[1].str()); continue; }
        if (!current) continue;
        if (std::regex_search(line, m, frame)) {
            current->stack_frame_bytes = to_long(m[1]);
            current->spill_store_bytes = to_long(m[2]);
            current->spill_load_bytes = to_long(m[3]);
            continue;
        }
        if (std::regex_search(line, m, used)) {
            current->registers = static_cast<int>(to_long(m[1]));
            if (std::regex_search(line, m, barriers)) current->barriers = static_cast<int>(to_long(m[1]));
            if (std::regex_search(line, m, smem)) current->shared_bytes = to_long(m[1]);
            if (std::regex_search(line, m, cumulative)) current->cumulative_stack_bytes = to_long(m[1]);
            if (std::regex_search(line, m, cmem)) current->constant_bytes = to_long(m[1]);
            continue;
        }
        if (std::regex_search(line, m, compile_time)) current->compile_ms = std::stod(m[1].str());
    }
    if (!saw_ptxas) return make_error("ptxas report: no 'ptxas' lines (was nvcc run with -Xptxas -v?)");
    return report;
}

Result<std::vector<ResourceUsage>> parse_cuobjdump_resource_usage(std::string_view text) {
    static const std::regex arch(R"re(arch = (\S+))re");
    static const std::regex function(R"re(^\s*Function ([^:\s]+):\s*$)re");
    static const std::regex field(R"re(([A-Z]+(?:\[0\])?):(\d+))re");

    std::vector<ResourceUsage> usages;
    std::string current_arch;
    ResourceUsage* current = nullptr;
    std::istringstream lines{std::string(text)};
    std::string line;
    std::smatch m;
    bool saw_resource_header = false;
    while (std::getline(lines, line)) {
        if (std::regex_search(line, m, arch)) { current_arch = m[1].str(); continue; }
        if (line.find("Resource usage") != std::string::npos) saw_resource_header = true;
        if (std::regex_match(line, m, function)) {
            usages.push_back(ResourceUsage{});
            current = &usages.back();
            current->function = m[1].str();
            current->arch = current_arch;
            continue;
        }
        if (!current || line.find("REG:") == std::string::npos) continue;
        for (auto it = std::sregex_iterator(line.begin(), line.end(), field); it != std::sregex_iterator(); ++it) {
            std::string key = (*it)[1].str();
            long value = std::stol((*it)[2].str());
            if (key == "REG") current->registers = static_cast<int>(value);
            else if (key == "STACK") current->stack = value;
            else if (key == "SHARED") current->shared = value;
            else if (key == "LOCAL") current->local = value;
            else if (key == "CONSTANT[0]") current->constant0 = value;
            else if (key == "TEXTURE") current->texture = static_cast<int>(value);
            else if (key == "SURFACE") current->surface = static_cast<int>(value);
            else if (key == "SAMPLER") current->sampler = static_cast<int>(value);
        }
        current = nullptr;
    }
    if (!saw_resource_header) return make_error("cuobjdump -res-usage: no 'Resource usage' section found");
    return usages;
}

}  // namespace kp::profile
