// Where the CUTLASS/CuTe headers are (docs/cutlass.md): candidates of a task with
// `[build] libraries = ["cutlass"]` compile against them. Order: an explicit folder (kernelpro's
// --cutlass-dir, which sets $KERNELPRO_CUTLASS_DIR for the whole run), then $KERNELPRO_CUTLASS_DIR,
// then the tree PyPI's nvidia-cutlass wheel installs (cutlass_library/source, found by asking
// Python where the package is, without importing it), then /usr/local/cutlass and /opt/cutlass.
// A folder qualifies when it holds include/cutlass/version.h (a CUTLASS checkout or release) or
// source/include/cutlass/version.h (the wheel's cutlass_library package). A folder named
// explicitly that does not qualify is an error, never a reason to pick up another copy.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "common/result.h"

namespace kp {

struct CutlassInstall {
    std::filesystem::path root;  // holds include/cute, include/cutlass and tools/util/include
    std::string version;         // "4.2.0", from include/cutlass/version.h
    std::string found_by;        // "--cutlass-dir / KERNELPRO_CUTLASS_DIR", "python package nvidia-cutlass", "fixed path"

    // -I folders: include/ and, when present, tools/util/include (cutlass/util/...).
    std::vector<std::filesystem::path> include_directories() const;
};

// "4.2.0" from the text of cutlass/version.h (CUTLASS_MAJOR, _MINOR, _PATCH), or an error.
Result<std::string> parse_cutlass_version(const std::string& version_header);

// The install under `folder` (either layout above), or why it is not one.
Result<CutlassInstall> cutlass_install_at(const std::filesystem::path& folder);

// The search above; `explicit_folder` empty: start at the variable. The error names every place
// looked at and how to install the headers (scripts/setup, pip install nvidia-cutlass).
Result<CutlassInstall> locate_cutlass(const std::filesystem::path& explicit_folder = {});

// The nvcc flags a CUTLASS candidate needs besides the usual ones: the include folders,
// --expt-relaxed-constexpr (CuTe calls constexpr host functions from device code), and direct
// calls of the driver's TMA descriptor encoders (cuTensorMapEncode*, linked from libcuda) instead
// of CUTLASS's default lookup through cudaGetDriverEntryPoint, which would hand out any driver
// function and which the static guard therefore refuses.
std::vector<std::string> cutlass_nvcc_flags(const CutlassInstall& install);

}  // namespace kp
