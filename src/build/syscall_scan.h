// The static guard's search for raw system calls: a syscall, sysenter or int 0x80 instruction in
// any section of a library that is executable or lies in an executable segment (a host function
// placed in its own section is found too, not only .text). It disassembles linearly, so bytes
// hidden inside other instructions can still slip by; the worker's seccomp filter is the boundary.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "build/static_guard.h"

namespace kp {

// The sections of an ELF file that are executable or lie in an executable segment, from the
// output of `readelf -SW` and `readelf -lW`.
std::vector<std::string> executable_section_names(const std::string& readelf_sections, const std::string& readelf_segments);

// The first system-call instruction in those sections (readelf and objdump -D), naming the section.
std::optional<GuardViolation> find_system_call_instruction(const std::filesystem::path& library);

}  // namespace kp
