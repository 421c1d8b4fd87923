// What the profile does between the collectors' stages, over one ProfileSession: the GPU
// preparation, the kernel list from the first collection, each kernel's data from the build, the
// worker's requests, and the diagnosis. The collectors (collectors/*.cpp) use the helpers too.
#pragma once

#include <filesystem>
#include <string>

#include "analysis/profile_data.h"
#include "common/result.h"
#include "diagnose/profile_session.h"
#include "eval/protocol.h"

namespace kp::diagnose {

// The worker, the scratch folder and the cache key every GPU result is stored under; gpu_ready.
Status prepare_gpu(ProfileSession& session);
// The entry kernels by mangled name, from ptxas (else SASS); after the build stage.
void find_entry_kernels(ProfileSession& session);
// A kernel's data from the build: its SASS (source lines named as the candidate), its summary and
// its ptxas resources, with the ceilings and the task's minimal cost.
analysis::ProfileData kernel_data(const ProfileSession& session, const std::string& kernel_name);
// One entry per launch the first collection counted, with its metrics.
void assemble_kernels(ProfileSession& session);
// The worker's profile_run request for `iterations` calls, and the same written to `path` (ncu and
// the timeline start the worker with it).
WorkerRequest profile_request(const ProfileSession& session, int iterations);
Result<std::filesystem::path> write_profile_request(const WorkerRequest& request, const std::filesystem::path& path);
// The source pages of `result` attached to the kernel they describe (the first one each).
void attach_source_pages(analysis::ProfileData& data, const profile::NcuResult& result);

void sort_longest_first(ProfileSession& session);
void diagnose_kernels(ProfileSession& session);
// The SASS/ptxas-only diagnosis of every entry kernel, with why the GPU data is missing.
ProfileReport offline_report(ProfileSession& session, const std::string& why);

}  // namespace kp::diagnose
