#include "search/proposers/parameter_space.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace kp::search {

ParameterRole role_of(const std::string& name) {
    std::string n;
    for (char c : name) n.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
    auto has = [&](const char* s) { return n.find(s) != std::string::npos; };
    if (has("VEC") || has("WIDTH")) return ParameterRole::vector_width;
    if (has("MINB") || has("MIN_BLOCKS")) return ParameterRole::min_blocks;
    if (has("STAGE")) return ParameterRole::pipeline_depth;
    if (has("GRID")) return ParameterRole::grid_size;
    if (has("UNROLL") || has("ITEMS") || has("PER_THREAD") || has("ROWS") || has("WORK") || has("ILP"))
        return ParameterRole::work_per_thread;
    if (has("BLOCK") || has("THREADS") || has("TILE") || n == "BX" || n == "BY" || n == "BM" || n == "BN" || n == "BK" ||
        n == "WARPS")
        return ParameterRole::block_size;
    return ParameterRole::other;
}

std::optional<std::string> source_define_default(const std::string& source, const std::string& name) {
    std::istringstream in(source);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream words(line);
        std::string directive, macro, value;
        if (!(words >> directive)) continue;
        if (directive == "#") {
            std::string rest;
            words >> rest;
            directive = "#" + rest;
        }
        if (directive != "#define") continue;
        if (!(words >> macro >> value)) continue;
        if (macro == name) return value;
    }
    return std::nullopt;
}

ParameterValues resolve_point(const std::string& source, const TunableSpace& space, const ParameterValues& params) {
    ParameterValues point;
    for (const auto& p : space.parameters) {
        if (p.values.empty()) continue;
        auto given = params.find(p.name);
        if (given != params.end()) {
            point[p.name] = given->second;
            continue;
        }
        auto def = source_define_default(source, p.name);
        if (def && std::find(p.values.begin(), p.values.end(), *def) != p.values.end()) point[p.name] = *def;
        else point[p.name] = p.values.front();
    }
    // Keep params the space does not declare (set by someone else): they still reach the compiler.
    for (const auto& [k, v] : params) point.emplace(k, v);
    return point;
}

std::string point_text(const ParameterValues& point) {
    std::string out;
    for (const auto& [k, v] : point) {
        if (!out.empty()) out += ",";
        out += k + "=" + v;
    }
    return out;
}

std::vector<ParameterValues> enumerate_points(const TunableSpace& space, std::size_t limit) {
    std::vector<ParameterValues> out;
    std::vector<const TunableParameter*> params;
    for (const auto& p : space.parameters)
        if (!p.values.empty()) params.push_back(&p);
    std::vector<std::size_t> index(params.size(), 0);
    while (out.size() < limit) {
        ParameterValues point;
        for (std::size_t i = 0; i < params.size(); ++i) point[params[i]->name] = params[i]->values[index[i]];
        if (satisfies_constraints(space, point)) out.push_back(std::move(point));
        std::size_t i = params.size();
        while (i > 0) {
            --i;
            if (++index[i] < params[i]->values.size()) break;
            index[i] = 0;
            if (i == 0) return out;
        }
        if (params.empty()) return out;
    }
    return out;
}

std::optional<ParameterValues> random_point(const TunableSpace& space, std::mt19937_64& rng, int attempts) {
    for (int a = 0; a < attempts; ++a) {
        ParameterValues point;
        for (const auto& p : space.parameters) {
            if (p.values.empty()) continue;
            std::uniform_int_distribution<std::size_t> pick(0, p.values.size() - 1);
            point[p.name] = p.values[pick(rng)];
        }
        if (satisfies_constraints(space, point)) return point;
    }
    return std::nullopt;
}

std::optional<ParameterMove> step(const TunableSpace& space, const ParameterValues& point, const std::string& parameter,
                                  int direction) {
    auto it = std::find_if(space.parameters.begin(), space.parameters.end(),
                           [&](const TunableParameter& p) { return p.name == parameter; });
    if (it == space.parameters.end() || direction == 0) return std::nullopt;
    auto current = point.find(parameter);
    if (current == point.end()) return std::nullopt;
    const auto& values = it->values;
    auto pos = std::find(values.begin(), values.end(), current->second);
    if (pos == values.end()) return std::nullopt;
    long i = static_cast<long>(pos - values.begin());
    for (long j = i + direction; j >= 0 && j < static_cast<long>(values.size()); j += direction) {
        ParameterValues next = point;
        next[parameter] = values[static_cast<std::size_t>(j)];
        if (!satisfies_constraints(space, next)) continue;
        return ParameterMove{parameter, direction, current->second, values[static_cast<std::size_t>(j)], std::move(next)};
    }
    return std::nullopt;
}

}  // namespace kp::search
