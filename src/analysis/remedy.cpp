#include "analysis/remedy.h"

#include <array>
#include <utility>

#include <nlohmann/json.hpp>

namespace kp::analysis {

namespace {

constexpr std::array<std::pair<ParameterRole, const char*>, 7> kRoles = {{
    {ParameterRole::vector_width, "vector_width"},
    {ParameterRole::work_per_thread, "work_per_thread"},
    {ParameterRole::block_size, "block_size"},
    {ParameterRole::min_blocks, "min_blocks"},
    {ParameterRole::grid_size, "grid_size"},
    {ParameterRole::pipeline_depth, "pipeline_depth"},
    {ParameterRole::other, "other"},
}};

struct RewriteText {
    Rewrite rewrite;
    const char* name;
    const char* description;
};

constexpr RewriteText kRewrites[] = {
    {Rewrite::coalesce_accesses, "coalesce_accesses", "make consecutive threads of a warp access consecutive addresses"},
    {Rewrite::vectorize_accesses, "vectorize_accesses", "load and store 16 bytes per thread (float4/int4)"},
    {Rewrite::remove_bank_conflicts, "remove_bank_conflicts", "pad or swizzle shared arrays so a warp's lanes hit different banks"},
    {Rewrite::reduce_register_pressure, "reduce_register_pressure", "keep fewer values live per thread, or give the kernel more registers"},
    {Rewrite::reduce_shared_memory, "reduce_shared_memory", "use less shared memory per block (smaller tiles, fewer stages)"},
    {Rewrite::resize_blocks, "resize_blocks", "use blocks of 128-256 threads"},
    {Rewrite::balance_work, "balance_work", "give every block the same amount of work"},
    {Rewrite::fill_the_gpu, "fill_the_gpu", "launch at least one block per SM: split the work finer"},
    {Rewrite::whole_waves, "whole_waves", "size the grid to whole waves, or loop over the work with a persistent grid"},
    {Rewrite::uniform_branches, "uniform_branches", "make branch conditions uniform per warp"},
    {Rewrite::more_loads_in_flight, "more_loads_in_flight", "issue independent loads early and together (unroll, prefetch, cp.async)"},
    {Rewrite::cut_pipe_work, "cut_pipe_work", "issue fewer instructions on the saturated pipe"},
    {Rewrite::use_tensor_cores, "use_tensor_cores", "compute the matrix product on tensor cores"},
    {Rewrite::use_fp32, "use_fp32", "compute in float where double precision is not needed"},
    {Rewrite::fuse_multiply_add, "fuse_multiply_add", "write a*b+c forms the compiler can fuse"},
    {Rewrite::reuse_on_chip, "reuse_on_chip", "load each input once per block and reuse it from shared memory or registers"},
    {Rewrite::improve_l2_locality, "improve_l2_locality", "run the blocks that share inputs together (rasterize or swizzle the block index)"},
    {Rewrite::fuse_kernels, "fuse_kernels", "fuse the small kernels (or capture them in a CUDA Graph)"},
    {Rewrite::more_work_per_barrier, "more_work_per_barrier", "do more work between barriers (larger tiles, double buffering)"},
    {Rewrite::privatize_atomics, "privatize_atomics", "combine per block or warp first, then one global atomic per bin"},
};

const RewriteText& text_of(Rewrite rewrite) {
    for (const auto& t : kRewrites)
        if (t.rewrite == rewrite) return t;
    return kRewrites[0];
}

Remedy move(Rewrite rewrite, ParameterRole role, int direction, double strength) { return {rewrite, role, direction, strength}; }

}  // namespace

const char* parameter_role_name(ParameterRole role) {
    for (const auto& [value, name] : kRoles)
        if (value == role) return name;
    return "other";
}

std::optional<ParameterRole> parse_parameter_role(std::string_view name) {
    for (const auto& [value, text] : kRoles)
        if (name == text) return value;
    return std::nullopt;
}

const char* rewrite_name(Rewrite rewrite) { return text_of(rewrite).name; }
const char* rewrite_description(Rewrite rewrite) { return text_of(rewrite).description; }

std::optional<Rewrite> parse_rewrite(std::string_view name) {
    for (const auto& t : kRewrites)
        if (name == t.name) return t.rewrite;
    return std::nullopt;
}

nlohmann::json to_json(const Remedy& r) {
    nlohmann::json j = {{"rewrite", rewrite_name(r.rewrite)}, {"strength", r.strength}};
    if (r.moves_a_parameter()) {
        j["role"] = parameter_role_name(r.role);
        j["direction"] = r.direction > 0 ? "up" : "down";
    }
    return j;
}

std::optional<Remedy> remedy_from_json(const nlohmann::json& j) {
    if (!j.is_object() || !j.contains("rewrite") || !j["rewrite"].is_string()) return std::nullopt;
    auto rewrite = parse_rewrite(j["rewrite"].get<std::string>());
    if (!rewrite) return std::nullopt;
    Remedy r = rewrite_only(*rewrite);
    r.strength = j.value("strength", 1.0);
    if (j.contains("role") && j["role"].is_string()) {
        auto role = parse_parameter_role(j["role"].get<std::string>());
        const std::string direction = j.value("direction", "");
        if (!role || (direction != "up" && direction != "down")) return std::nullopt;
        r.role = *role;
        r.direction = direction == "up" ? +1 : -1;
    }
    return r;
}

std::string describe_move(const Remedy& r) {
    if (!r.moves_a_parameter()) return "";
    std::string text = std::string(parameter_role_name(r.role)) + (r.direction > 0 ? " up" : " down");
    if (r.strength >= 0.8) text += " (strong)";
    else if (r.strength < 0.4) text += " (weak)";
    return text;
}

Remedy rewrite_only(Rewrite rewrite) { return {rewrite, ParameterRole::other, 0, 1.0}; }

std::vector<Remedy> fewer_registers(Rewrite rewrite) {
    return {move(rewrite, ParameterRole::work_per_thread, -1, 1.0), move(rewrite, ParameterRole::min_blocks, -1, 0.8),
            move(rewrite, ParameterRole::block_size, -1, 0.5), move(rewrite, ParameterRole::pipeline_depth, -1, 0.5),
            move(rewrite, ParameterRole::vector_width, -1, 0.2)};
}

std::vector<Remedy> more_occupancy(Rewrite rewrite) {
    return {move(rewrite, ParameterRole::min_blocks, +1, 1.0), move(rewrite, ParameterRole::block_size, -1, 0.4),
            move(rewrite, ParameterRole::work_per_thread, -1, 0.4)};
}

std::vector<Remedy> finer_grid(Rewrite rewrite) {
    return {move(rewrite, ParameterRole::work_per_thread, -1, 1.0), move(rewrite, ParameterRole::grid_size, +1, 0.8),
            move(rewrite, ParameterRole::block_size, -1, 0.6)};
}

std::vector<Remedy> wider_accesses(Rewrite rewrite) {
    return {move(rewrite, ParameterRole::vector_width, +1, 1.0), move(rewrite, ParameterRole::work_per_thread, +1, 0.3)};
}

std::vector<Remedy> more_in_flight(Rewrite rewrite) {
    return {move(rewrite, ParameterRole::work_per_thread, +1, 0.6), move(rewrite, ParameterRole::vector_width, +1, 0.5),
            move(rewrite, ParameterRole::grid_size, +1, 0.3), move(rewrite, ParameterRole::pipeline_depth, +1, 0.3)};
}

}  // namespace kp::analysis
