// The parameter space of a kernel version as the built-in proposers see it: the kp:tune lines of its
// source, the point the node sits on, neighbours, enumeration and roles of parameters by name.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "analysis/remedy.h"
#include "build/tunables.h"
#include "common/result.h"
#include "search/candidate.h"

namespace kp::search {

// What a parameter controls (the findings' remedies and the tuner's moves are phrased in roles),
// guessed from its name.
using analysis::ParameterRole;
using analysis::parameter_role_name;
ParameterRole role_of(const std::string& parameter_name);

// The value `#define NAME value` gives NAME in `source` (the default its `#ifndef NAME` block sets).
std::optional<std::string> source_define_default(const std::string& source, const std::string& name);

// The full point a node sits on: its explicit params, else the source's `#define NAME value`
// default when that value is in the list, else the first declared value.
ParameterValues resolve_point(const std::string& source, const TunableSpace& space, const ParameterValues& params);

// Canonical text of a point ("BLOCK=128,VEC=4"), for tried-sets.
std::string point_text(const ParameterValues& point);

// Every point of the space that satisfies its constraints, in declared (odometer) order.
std::vector<ParameterValues> enumerate_points(const TunableSpace& space, std::size_t limit = 1'000'000);

// A uniformly random point satisfying the constraints (rejection sampling), nullopt if none found.
std::optional<ParameterValues> random_point(const TunableSpace& space, std::mt19937_64& rng, int attempts = 256);

// One step of one parameter: to the next declared value in `direction` (+1 / -1) that keeps every
// constraint satisfied; nullopt at the end of the list.
struct ParameterMove {
    std::string parameter;
    int direction = 0;
    std::string from, to;
    ParameterValues point;  // the resulting full point
};
std::optional<ParameterMove> step(const TunableSpace& space, const ParameterValues& point, const std::string& parameter,
                                  int direction);

}  // namespace kp::search
