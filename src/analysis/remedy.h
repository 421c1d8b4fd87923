// What a finding suggests doing, as data: the source change (rewrite) and, where a kp:tune
// parameter of some role can approximate it, which way to move it and how strongly. The tuner and
// the LLM prompt act on these; no decision reads a finding's prose (which is for people and LLMs).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace kp::analysis {

// What a tunable parameter controls (the search guesses it from the parameter's name).
enum class ParameterRole {
    vector_width,     // VEC: elements per load
    work_per_thread,  // UNROLL, ROWS, ITEMS, ...: independent work items per thread
    block_size,       // BLOCK, BX, BY, BM, BN, TILE, THREADS: threads or tile per block
    min_blocks,       // MINB: __launch_bounds__ min blocks per SM (caps registers)
    grid_size,        // GRID: blocks launched (persistent kernels)
    pipeline_depth,   // STAGES
    other,
};
const char* parameter_role_name(ParameterRole role);
std::optional<ParameterRole> parse_parameter_role(std::string_view name);

// The source changes the tools suggest, one per kind of fix.
enum class Rewrite {
    coalesce_accesses,        // consecutive threads, consecutive addresses
    vectorize_accesses,       // 16 bytes per thread per access
    remove_bank_conflicts,    // pad or swizzle shared arrays
    reduce_register_pressure, // fewer live values, a larger register budget
    reduce_shared_memory,     // smaller tiles, fewer stages
    resize_blocks,            // 128-256 threads per block
    balance_work,             // equal work per block
    fill_the_gpu,             // at least one block per SM: split the work finer
    whole_waves,              // a grid of whole waves, or a persistent grid-stride loop
    uniform_branches,         // the same path for a warp's threads
    more_loads_in_flight,     // independent loads issued early (unroll, prefetch, cp.async)
    cut_pipe_work,            // fewer instructions on the saturated pipe
    use_tensor_cores,         // the product on tensor cores
    use_fp32,                 // float where double is not needed
    fuse_multiply_add,        // a*b+c the compiler can fuse
    reuse_on_chip,            // each input loaded once per block, reused from shared memory or registers
    improve_l2_locality,      // blocks that share inputs run together
    fuse_kernels,             // one kernel (or a CUDA Graph) instead of many small launches
    more_work_per_barrier,    // larger tiles per __syncthreads, double buffering
    privatize_atomics,        // combine per block or warp, one global atomic per bin
};
const char* rewrite_name(Rewrite rewrite);         // "vectorize_accesses"
const char* rewrite_description(Rewrite rewrite);  // one line, for prompts and reports
std::optional<Rewrite> parse_rewrite(std::string_view name);

struct Remedy {
    Rewrite rewrite = Rewrite::cut_pipe_work;
    ParameterRole role = ParameterRole::other;  // other: no parameter approximates the rewrite
    int direction = 0;                          // +1 up the parameter's value list, -1 down; 0 with role other
    double strength = 1.0;                      // 0..1: how strongly the finding points this way
    bool moves_a_parameter() const { return role != ParameterRole::other && direction != 0; }
};

nlohmann::json to_json(const Remedy& remedy);
std::optional<Remedy> remedy_from_json(const nlohmann::json& j);
// "vector_width up (strong)", "" for a rewrite alone.
std::string describe_move(const Remedy& remedy);

// The remedy sets several tools (and the tuner's compiler-fact fallbacks) share; each entry one
// parameter move of the rewrite given.
Remedy rewrite_only(Rewrite rewrite);
// Fewer registers per thread: less work per thread, fewer resident blocks asked for, smaller
// blocks, fewer stages, narrower vectors.
std::vector<Remedy> fewer_registers(Rewrite rewrite = Rewrite::reduce_register_pressure);
// More resident warps: a min-blocks hint up, smaller blocks, less work per thread.
std::vector<Remedy> more_occupancy(Rewrite rewrite);
// A finer grid: less work per thread, more blocks, smaller blocks.
std::vector<Remedy> finer_grid(Rewrite rewrite);
// Wider accesses: vectors up, a little more work per thread.
std::vector<Remedy> wider_accesses(Rewrite rewrite);
// More bytes in flight: more work per thread, wider vectors, more blocks, deeper pipelines.
std::vector<Remedy> more_in_flight(Rewrite rewrite);

}  // namespace kp::analysis
