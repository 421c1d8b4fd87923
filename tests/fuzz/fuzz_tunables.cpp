// libFuzzer target: candidate source text through the `// kp:tune` / `// kp:constraint` parser and
// the constraint evaluator, with the first declared value of every parameter. Never throws,
// never overflows (UBSan), messages are valid UTF-8.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "build/tunables.h"
#include "common/utf8.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string source(reinterpret_cast<const char*>(data), size);
    auto space = kp::parse_tunables(source);
    if (!space.ok()) {
        if (!kp::is_valid_utf8(space.error().message)) std::abort();
        return 0;
    }
    kp::ParameterValues first;
    for (const auto& p : space->parameters) {
        if (p.values.empty()) std::abort();
        first[p.name] = p.values.front();
    }
    (void)kp::satisfies_constraints(*space, first);
    for (const auto& flag : kp::define_flags(first))
        if (!kp::is_valid_utf8(flag)) std::abort();
    // The whole input as one expression too.
    auto value = kp::evaluate_expression(source, first);
    if (!value.ok() && !kp::is_valid_utf8(value.error().message)) std::abort();
    return 0;
}
