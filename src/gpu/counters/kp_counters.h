// libkp_counters.so: hardware counters of one call, collected inside kernelpro-worker with CUPTI's
// range profiler, so a profile needs no ncu process (whose start and attach cost 1.6 s on the H200
// before it counts anything). The worker opens it with dlopen only when asked for counters, so the
// worker itself never depends on CUPTI.
//
// Requests and replies are JSON text (the library links its own C++ runtime statically, so no C++
// object or exception crosses this boundary). Every returned string is freed with kp_counters_free.
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

// What the host program does for each replay pass. `prepare` runs before the pass's profiling
// range opens (the worker flushes L2 there, so that its own memset is not profiled), `call` inside
// it (the worker runs the candidate once). 0 = done; anything else stops the collection (the
// worker keeps the reason).
typedef int (*kp_counters_step)(void* user);

// On the GPU of the current CUDA context. Request:
//   {"metrics": ["dram__bytes_read.sum", ...], "max_ranges": 16}
// Runs `prepare` then `call` once per replay pass (user replay; every kernel launch is one range). Reply:
//   {"chip": "GH100", "passes": 8, "dropped_ranges": 0, "seconds": {...},
//    "ranges": [{"index": 0, "metrics": {"dram__bytes_read.sum": 1.0e9, ...}}, ...],
//    "launches": [{"name": mangled, "grid": [x,y,z], "block": [x,y,z], "dynamic_shared_bytes": n,
//                  "static_shared_bytes": n, "local_bytes": n, "registers": n,
//                  "driver_max_active_blocks": n}, ...],        (launches in the first pass, in order)
//    "device": {"sm_count": n, ...}}
// or {"error": "...", "stage": "..."}; "unsupported": [...] names metrics this GPU cannot count.
char* kp_counters_collect(const char* request_json, kp_counters_step prepare, kp_counters_step call, void* user);

// The call's activity timeline, on the GPU of the current CUDA context: CUPTI's activity API on
// for `calls` calls (each after `prepare`), then off. Request: {"calls": 1}. Reply: a
// kernelpro.timeline.v1 document (kp::gpu::parse_timeline_json; runtime calls that only poll are
// left out) with "calls", or {"error": "..."}. Outside any range-profiler pass.
char* kp_counters_trace(const char* request_json, kp_counters_step prepare, kp_counters_step call, void* user);

// PC sampling of one call (after `prepare`), kernel-serialized, every stall reason this GPU
// samples. Request: {"sampling_period": 9} (2^9 cycles between samples per SM). Reply:
//   {"sampling_period": 9, "total_samples": n, "dropped_samples": n,
//    "pcs": [{"function": mangled, "pc_offset": n, "stalls": {"smsp__pcsamp_warps_issue_stalled_long_scoreboard": n, ...}}, ...]}
// or {"error": "..."} (kp::profile::pc_sampling_from_json reads it).
char* kp_counters_sample_pcs(const char* request_json, kp_counters_step prepare, kp_counters_step call, void* user);

// PC sampling switched on for the current CUDA context before the sampled module is loaded: CUPTI
// keeps PC records only for modules it saw load while sampling was enabled (loaded earlier, all
// their samples count as a non-user kernel's, with no PC). kp_counters_sample_pcs then uses this
// session. Reply: {} or {"error": "..."}.
char* kp_counters_enable_pc_sampling(const char* request_json);

// No GPU needed: which of the metrics a chip can count and in how many passes. Request:
//   {"chip": "GH100", "metrics": [...]}  ->  {"chip": ..., "passes": n, "unsupported": [...]} or {"error": ...}
char* kp_counters_plan(const char* request_json);

void kp_counters_free(char* text);

#ifdef __cplusplus
}
#endif
