#include "common/files.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/utf8.h"

namespace kp {

namespace fs = std::filesystem;

Result<std::string> read_text_file(const fs::path& path) {
    std::error_code error;
    auto type = fs::status(path, error).type();
    if (error) return make_error("cannot read " + path_text(path) + ": " + error.message());
    if (type == fs::file_type::directory) return make_error("cannot read " + path_text(path) + ": it is a folder");
    errno = 0;
    std::ifstream in(path, std::ios::binary);
    if (!in) return make_error("cannot read " + path_text(path) + (errno ? std::string(": ") + std::strerror(errno) : ""));
    std::ostringstream buffer;
    buffer << in.rdbuf();
    if (in.bad()) return make_error("cannot read " + path_text(path) + ": read error");
    return buffer.str();
}

Status write_file_atomically(const fs::path& path, const std::string& contents) {
    std::error_code ec;
    if (path.has_parent_path()) {
        fs::create_directories(path.parent_path(), ec);
        if (ec) return make_error("cannot create the folder " + path_text(path.parent_path()) + ": " + ec.message());
    }
    // Unique per process and thread: several threads (and processes) may write the same file.
    static std::atomic<unsigned> counter{0};
    fs::path temp = path;
    temp += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
    {
        errno = 0;
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        if (!out)
            return make_error("cannot write " + path_text(temp) + (errno ? std::string(": ") + std::strerror(errno) : ""));
        out << contents;
        out.flush();
        if (!out) {
            fs::remove(temp, ec);
            return make_error("write failed (disk full?): " + path_text(temp));
        }
    }
    fs::rename(temp, path, ec);
    if (ec) {
        std::error_code ignored;
        fs::remove(temp, ignored);
        return make_error("cannot rename " + path_text(temp) + " to " + path_text(path) + ": " + ec.message());
    }
    return {};
}

fs::path cache_directory() {
    fs::path dir;
    if (const char* explicit_dir = std::getenv("KERNELPRO_CACHE_DIR"); explicit_dir && *explicit_dir) dir = explicit_dir;
    else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) dir = fs::path(xdg) / "kernelpro";
    else if (const char* home = std::getenv("HOME"); home && *home) dir = fs::path(home) / ".cache" / "kernelpro";
    else dir = fs::path("/tmp") / "kernelpro-cache";
    std::error_code ec;
    fs::create_directories(dir, ec);
    return dir;
}

Result<fs::path> create_unique_directory(const fs::path& base) {
    std::error_code error;
    if (base.has_parent_path()) {
        fs::create_directories(base.parent_path(), error);
        if (error) return make_error("cannot create the folder " + path_text(base.parent_path()) + ": " + error.message());
    }
    for (int attempt = 1; attempt <= 1000; ++attempt) {
        fs::path candidate = attempt == 1 ? base : fs::path(base.string() + "-" + std::to_string(attempt));
        if (fs::create_directory(candidate, error)) return candidate;  // false: it existed already
        if (error) return make_error("cannot create the folder " + path_text(candidate) + ": " + error.message());
    }
    return make_error("cannot create a folder named like " + path_text(base) + ": 1000 of them exist");
}

Result<fs::path> make_temp_directory(const std::string& prefix) {
    std::error_code error;
    fs::path base = fs::temp_directory_path(error);
    if (error) base = "/tmp";
    std::string pattern = (base / (prefix + "-XXXXXX")).string();
    if (!::mkdtemp(pattern.data()))
        return make_error("cannot create a temporary directory from " + valid_utf8(pattern) + ": " + std::strerror(errno));
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
