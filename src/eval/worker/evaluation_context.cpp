#include "eval/worker/evaluation_context.h"

#include <cmath>
#include <sstream>

#include "eval/worker/worker_failure.h"

namespace kp::worker {

EvaluationContext::EvaluationContext(const WorkerRequest& request, GpuSession& gpu, const Channel& channel)
    : request(request), gpu(gpu), channel(channel), inputs(layouts_from_task_json(request.task, "inputs")),
      outputs(layouts_from_task_json(request.task, "outputs")), layout(request.variant.layout), fixed(FixedInputs::load(inputs)) {}

uint64_t mix_seed(uint64_t seed, uint64_t a, uint64_t b) {
    uint64_t x = seed ^ (a * 0x9E3779B97F4A7C15ull) ^ (b * 0xC2B2AE3D27D4EB4Full);
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

namespace {

std::vector<uint64_t> input_checksums(EvaluationContext& c, size_t set) {
    std::vector<uint64_t> sums;
    for (size_t i = 0; i < c.inputs.size(); ++i) {
        uint64_t s = 0;
        check_cuda(checksum(c.input_sets[set].buffer(i), c.gpu.stream(), &s), "checksumming inputs");
        sums.push_back(s);
    }
    return sums;
}

nlohmann::json compare_json(const CompareStats& s, const DeviceBuffer& reference, const DeviceBuffer& output) {
    nlohmann::json j{{"elements", s.elements}, {"mismatches", s.mismatches}, {"nonfinite_outputs", s.nonfinite_outputs},
                     {"max_abs_error", s.max_abs_error}, {"max_abs_index", s.max_abs_index},
                     {"max_rel_error", s.max_rel_error}, {"max_rel_index", s.max_rel_index}};
    if (s.first_mismatch >= 0) {
        double r = 0, o = 0;
        read_element(reference, s.first_mismatch, &r);
        read_element(output, s.first_mismatch, &o);
        j["first_mismatch"] = {{"index", s.first_mismatch},
                               {"expected", std::isfinite(r) ? nlohmann::json(r) : nlohmann::json(std::to_string(r))},
                               {"got", std::isfinite(o) ? nlohmann::json(o) : nlohmann::json(std::to_string(o))}};
    }
    return j;
}

std::string mismatch_message(const std::string& what, const std::string& name, const CompareStats& s,
                             const nlohmann::json& detail) {
    std::ostringstream m;
    m << what << ": output '" << name << "': " << s.mismatches << " of " << s.elements << " elements outside tolerance";
    if (s.nonfinite_outputs) m << " (" << s.nonfinite_outputs << " NaN/inf, e.g. never written)";
    if (detail.contains("first_mismatch")) {
        const auto& f = detail["first_mismatch"];
        m << "; first at index " << f["index"] << ": expected " << f["expected"] << ", got " << f["got"];
    }
    m << "; max abs error " << s.max_abs_error << ", max rel error " << s.max_rel_error;
    return m.str();
}

}  // namespace

void setup_library(const KernelLibrary& library, const EvaluationContext& c, const std::string& phase) {
    if (int rc = library.setup(shape_only_views(c.inputs), shape_only_views(c.outputs)); rc != 0)
        throw WorkerFailure(FailureClass::Crash, library.role() + " kp_setup returned " + std::to_string(rc), phase);
}

std::vector<uint64_t> prepare_inputs(EvaluationContext& c, size_t set, uint64_t round) {
    TensorGroup& group = c.input_sets[set];
    for (size_t i = 0; i < c.inputs.size(); ++i)
        if (c.fixed.is_fixed(i)) c.fixed.upload(i, set, group, c.gpu.stream());
    if (!c.data_sets.empty()) {
        const TensorSet& data = c.data_sets[round % c.data_sets.size()];
        for (size_t i = 0; i < c.inputs.size(); ++i) {
            if (c.fixed.is_fixed(i)) continue;
            const HostTensor& t = data.at(c.inputs[i].spec.name);
            check_cuda(cudaMemcpyAsync(group.buffer(i).data, t.bytes.data(), t.bytes.size(), cudaMemcpyHostToDevice,
                                       c.gpu.stream()), "uploading input " + c.inputs[i].spec.name);
        }
    } else {
        for (size_t i = 0; i < c.inputs.size(); ++i)
            if (!c.fixed.is_fixed(i))
                check_cuda(fill_random(group.buffer(i), c.inputs[i].spec.distribution, mix_seed(c.request.seed, round, i),
                                       c.gpu.stream()), "generating input " + c.inputs[i].spec.name);
    }
    return input_checksums(c, set);
}

std::vector<uint64_t> perturb_inputs(EvaluationContext& c, size_t set, uint64_t round) {
    TensorGroup& group = c.input_sets[set];
    for (size_t i = 0; i < c.inputs.size(); ++i)
        if (!c.fixed.is_fixed(i))
            check_cuda(perturb_random(group.buffer(i), c.inputs[i].spec.distribution, mix_seed(c.request.seed, round, i), 251,
                                      c.gpu.stream()), "perturbing input " + c.inputs[i].spec.name);
    return input_checksums(c, set);
}

std::optional<std::string> inputs_changed(EvaluationContext& c, size_t set, const std::vector<uint64_t>& before) {
    auto now = input_checksums(c, set);
    for (size_t i = 0; i < c.inputs.size(); ++i)
        if (now[i] != before[i]) return c.inputs[i].spec.name;
    return std::nullopt;
}

nlohmann::json check_outputs(EvaluationContext& c, const TensorGroup& expected, const TensorGroup& got, const std::string& what) {
    nlohmann::json per_output = nlohmann::json::array();
    for (size_t o = 0; o < c.outputs.size(); ++o) {
        CompareStats s;
        check_cuda(compare_outputs(expected.buffer(o), got.buffer(o), c.outputs[o].atol, c.outputs[o].rtol, c.gpu.stream(), &s),
                   "comparing outputs");
        auto j = compare_json(s, expected.buffer(o), got.buffer(o));
        j["name"] = c.outputs[o].spec.name;
        if (s.mismatches > 0) throw WorkerFailure(FailureClass::Incorrect, mismatch_message(what, c.outputs[o].spec.name, s, j), what);
        per_output.push_back(j);
    }
    return per_output;
}

void load_data_sets(EvaluationContext& c) {
    for (const auto& path : c.request.reference_data_sets) {
        auto set = read_safetensors(path);
        if (!set.ok()) throw WorkerFailure(FailureClass::Crash, "reference data: " + set.error().message, "reference");
        for (const auto* list : {&c.inputs, &c.outputs})
            for (const auto& l : *list) {
                if (l.spec.distribution.kind == DistributionKind::Fixed) continue;
                auto it = set->find(l.spec.name);
                if (it == set->end())
                    throw WorkerFailure(FailureClass::Crash, "reference data " + path + " has no tensor '" + l.spec.name + "'", "reference");
                if (static_cast<int64_t>(it->second.bytes.size()) != l.spec.storage_bytes() || it->second.dtype != l.spec.dtype)
                    throw WorkerFailure(FailureClass::Crash, "reference data " + path + ": tensor '" + l.spec.name +
                                                                 "' does not match the task's dtype and shape", "reference");
            }
        c.data_sets.push_back(std::move(*set));
    }
}

void upload_expected(EvaluationContext& c, size_t round, TensorGroup& expected) {
    const TensorSet& data = c.data_sets[round % c.data_sets.size()];
    for (size_t o = 0; o < c.outputs.size(); ++o) {
        const HostTensor& t = data.at(c.outputs[o].spec.name);
        check_cuda(cudaMemcpyAsync(expected.buffer(o).data, t.bytes.data(), t.bytes.size(), cudaMemcpyHostToDevice,
                                   c.gpu.stream()), "uploading expected outputs");
    }
    c.gpu.wait_all("reference");
}

}  // namespace kp::worker
