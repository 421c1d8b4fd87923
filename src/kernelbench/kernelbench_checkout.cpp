#include "kernelbench/kernelbench_checkout.h"

#include <algorithm>
#include <charconv>
#include <regex>

namespace kp::kernelbench {

namespace fs = std::filesystem;

Result<std::vector<KernelBenchProblem>> list_level(const fs::path& root, int level) {
    const std::string folder = "level" + std::to_string(level);
    fs::path dir;
    for (const auto& candidate : {root / "KernelBench" / folder, root / folder})
        if (fs::is_directory(candidate)) dir = candidate;
    if (dir.empty())
        return make_error("no " + folder + " folder under " + root.string() + " (expected a KernelBench checkout: KB_ROOT/KernelBench/" +
                          folder + ")");
    std::vector<KernelBenchProblem> problems;
    static const std::regex name("([0-9]+)_.*\\.py");
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        std::smatch m;
        std::string file = entry.path().filename().string();
        if (entry.is_regular_file() && std::regex_match(file, m, name))
            problems.push_back({level, std::stoi(m[1].str()), entry.path()});
    }
    std::sort(problems.begin(), problems.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    if (problems.empty()) return make_error(dir.string() + " holds no problem files (ID_Name.py)");
    return problems;
}

Result<std::vector<int>> parse_problem_ids(const std::string& text) {
    std::vector<int> ids;
    auto number = [](std::string_view part, int& out) {
        auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), out);
        return ec == std::errc() && end == part.data() + part.size() && out > 0;
    };
    size_t start = 0;
    while (start <= text.size()) {
        size_t comma = text.find(',', start);
        std::string_view part(text.data() + start, (comma == std::string::npos ? text.size() : comma) - start);
        size_t dash = part.find('-');
        int a = 0, b = 0;
        bool ok = dash == std::string_view::npos ? number(part, a) && number(part, b)
                                                  : number(part.substr(0, dash), a) && number(part.substr(dash + 1), b) && a <= b;
        if (!ok) return make_error("--problems: '" + std::string(part) + "' is not an id or a range such as 1-10");
        for (int id = a; id <= b; ++id)
            if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return ids;
}

Result<std::vector<KernelBenchProblem>> select_problems(const std::vector<KernelBenchProblem>& level, const std::vector<int>& ids) {
    std::vector<KernelBenchProblem> chosen;
    for (int id : ids) {
        auto it = std::find_if(level.begin(), level.end(), [id](const auto& p) { return p.id == id; });
        if (it == level.end()) return make_error("problem " + std::to_string(id) + " is not in this level");
        chosen.push_back(*it);
    }
    return chosen;
}

}  // namespace kp::kernelbench
