#include "cli/bench_shards.h"

#include <algorithm>
#include <charconv>

namespace kp::cli {

namespace fs = std::filesystem;

Result<ShardSpec> parse_shard(const std::string& text) {
    auto slash = text.find('/');
    auto number = [](const std::string& part, int& value) {
        auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), value);
        return !part.empty() && error == std::errc() && end == part.data() + part.size();
    };
    ShardSpec shard;
    if (slash == std::string::npos || !number(text.substr(0, slash), shard.index) || !number(text.substr(slash + 1), shard.count) ||
        shard.count < 1 || shard.index < 0 || shard.index >= shard.count)
        return make_error("expected I/K with 0 <= I < K (shard I of K, counted from 0), got '" + text + "'");
    return shard;
}

std::vector<fs::path> task_folders(const fs::path& root, const std::string& only) {
    std::vector<fs::path> found;
    std::error_code ec;
    if (fs::is_regular_file(root / "task.toml")) return {root};
    for (const auto& e : fs::directory_iterator(root, ec))
        if (e.is_directory() && fs::is_regular_file(e.path() / "task.toml")) found.push_back(e.path());
    std::sort(found.begin(), found.end());
    if (only.empty()) return found;
    std::vector<fs::path> chosen;
    size_t start = 0;
    while (start <= only.size()) {
        size_t comma = only.find(',', start);
        std::string name = only.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        for (const auto& f : found)
            if (f.filename() == name) chosen.push_back(f);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return chosen;
}

std::vector<fs::path> shard_of(const std::vector<fs::path>& folders, const ShardSpec& shard) {
    std::vector<fs::path> mine;
    for (size_t j = 0; j < folders.size(); ++j)
        if (static_cast<int>(j % static_cast<size_t>(shard.count)) == shard.index) mine.push_back(folders[j]);
    return mine;
}

}  // namespace kp::cli
