// Tunable parameters a kernel declares with comment lines such as
//   // kp:tune BLOCK=128,256,512 VEC=1,2,4
//   // kp:constraint BLOCK*VEC <= 2048
// Values reach the source as -D NAME=value macros.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/result.h"

namespace kp {

struct TunableParameter {
    std::string name;
    std::vector<std::string> values;  // in declared order
};

struct TunableSpace {
    std::vector<TunableParameter> parameters;
    std::vector<std::string> constraints;  // arithmetic comparisons over parameter names
    size_t size() const;                   // product of value counts (before constraints)
};

using ParameterValues = std::map<std::string, std::string>;

// Parses the kp:tune and kp:constraint lines of a source file; errors name the line.
Result<TunableSpace> parse_tunables(const std::string& source);

// True when every constraint holds for `values` (a constraint that cannot be evaluated is false).
bool satisfies_constraints(const TunableSpace& space, const ParameterValues& values);

// Evaluates an integer expression with + - * / % ( ) and comparisons (< <= > >= == !=), && and ||,
// after substituting parameter values. Exposed for tests.
Result<long long> evaluate_expression(const std::string& expression, const ParameterValues& values);

// "-DNAME=value" flags, in name order.
std::vector<std::string> define_flags(const ParameterValues& values);

}  // namespace kp
