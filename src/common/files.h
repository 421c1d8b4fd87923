// Small file helpers: whole-file read, crash-safe write (temp file + rename), cache directory.
#pragma once

#include <filesystem>
#include <string>

#include "common/result.h"

namespace kp {

Result<std::string> read_text_file(const std::filesystem::path& path);

// Writes to a temporary file in the same directory and renames it over `path`, so a reader never
// sees a half-written file, even after a crash.
Status write_file_atomically(const std::filesystem::path& path, const std::string& contents);

// $KERNELPRO_CACHE_DIR, else $XDG_CACHE_HOME/kernelpro, else ~/.cache/kernelpro. Created on demand.
std::filesystem::path cache_directory();

// Creates `base` (and its parents), or `base-2`, `base-3` ... when another process took it first:
// the folder returned was created by this call, so concurrent runs never share one.
Result<std::filesystem::path> create_unique_directory(const std::filesystem::path& base);

// A fresh private directory under $TMPDIR (mode 0700), for one evaluation's scratch files.
Result<std::filesystem::path> make_temp_directory(const std::string& prefix);

// A make_temp_directory folder that is removed, with everything in it, when this goes out of
// scope (early returns included).
class ScratchDirectory {
public:
    static Result<ScratchDirectory> create(const std::string& prefix);
    ScratchDirectory(ScratchDirectory&& other) noexcept;
    ScratchDirectory& operator=(ScratchDirectory&&) = delete;
    ~ScratchDirectory();

    const std::filesystem::path& path() const { return path_; }

private:
    explicit ScratchDirectory(std::filesystem::path path) : path_(std::move(path)) {}
    std::filesystem::path path_;  // empty once moved from
};

}  // namespace kp
