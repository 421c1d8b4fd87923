// How an evaluation ended. Every failure of a candidate falls in exactly one class, so the search
// and the reports can count them.
#pragma once

#include <optional>
#include <string>

namespace kp {

enum class FailureClass {
    Ok,
    CompileError,     // nvcc rejected the source
    RejectedByGuard,  // the static guard found a forbidden call
    Crash,            // the worker died (illegal address, segfault, abort, candidate error code)
    Timeout,          // a call did not finish in time
    OutOfMemory,      // device or host memory exhausted
    Incorrect,        // outputs wrong, unwritten, non-deterministic, or inputs mutated
    InvalidTiming,    // timing the harness cannot trust (work outside the timed stream, below the roofline floor)
    RejectedBySandbox,  // candidate code tried what the sandbox forbids (a program, a file outside the
                        // scratch folder, a socket, a signal, a forged message on the result channel)
};

const char* failure_class_name(FailureClass c);
std::optional<FailureClass> parse_failure_class(const std::string& name);

}  // namespace kp
