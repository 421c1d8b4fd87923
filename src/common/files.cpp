#include "common/files.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace kp {

namespace fs = std::filesystem;

Result<std::string> read_text_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return make_error("cannot read " + path.string());
    std::ostringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

Status write_file_atomically(const fs::path& path, const std::string& contents) {
    std::error_code ec;
    if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
    fs::path temp = path;
    temp += ".tmp." + std::to_string(::getpid());
    {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        if (!out) return make_error("cannot write " + temp.string());
        out << contents;
        out.flush();
        if (!out) return make_error("write failed: " + temp.string());
    }
    fs::rename(temp, path, ec);
    if (ec) return make_error("cannot rename " + temp.string() + " to " + path.string() + ": " + ec.message());
    return {};
}

fs::path cache_directory() {
    fs::path dir;
    if (const char* explicit_dir = std::getenv("KERNELPRO_CACHE_DIR"); explicit_dir && *explicit_dir) dir = explicit_dir;
    else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) dir = fs::path(xdg) / "kernelpro";
    else if (const char* home = std::getenv("HOME"); home && *home) dir = fs::path(home) / ".cache" / "kernelpro";
    else dir = fs::temp_directory_path() / "kernelpro-cache";
    std::error_code ec;
    fs::create_directories(dir, ec);
    return dir;
}

Result<fs::path> make_temp_directory(const std::string& prefix) {
    std::string pattern = (fs::temp_directory_path() / (prefix + "-XXXXXX")).string();
    if (!::mkdtemp(pattern.data())) return make_error("cannot create a temporary directory from " + pattern);
    return fs::path(pattern);
}

Result<ScratchDirectory> ScratchDirectory::create(const std::string& prefix) {
    auto path = make_temp_directory(prefix);
    if (!path) return path.error();
    return ScratchDirectory(std::move(*path));
}

ScratchDirectory::ScratchDirectory(ScratchDirectory&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }

ScratchDirectory::~ScratchDirectory() {
    if (path_.empty()) return;
    std::error_code ignored;
    fs::remove_all(path_, ignored);
}

}  // namespace kp
