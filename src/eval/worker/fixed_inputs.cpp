#include "eval/worker/fixed_inputs.h"

#include "eval/worker/worker_failure.h"

namespace kp::worker {

FixedInputs FixedInputs::load(const std::vector<TensorLayout>& inputs) {
    FixedInputs fixed;
    fixed.host_.assign(inputs.size(), nullptr);
    fixed.uploaded_.assign(inputs.size(), {});
    for (size_t i = 0; i < inputs.size(); ++i) {
        const TensorSpec& spec = inputs[i].spec;
        if (spec.distribution.kind != DistributionKind::Fixed) continue;
        const std::string file = spec.distribution.file.string();
        auto it = fixed.files_.find(file);
        if (it == fixed.files_.end()) {
            auto read = read_safetensors(file);
            if (!read.ok()) throw WorkerFailure(FailureClass::Crash, "fixed input values: " + read.error().message, "reference");
            it = fixed.files_.emplace(file, std::move(*read)).first;
        }
        auto tensor = it->second.find(spec.name);
        if (tensor == it->second.end())
            throw WorkerFailure(FailureClass::Crash, file + " holds no tensor '" + spec.name + "'", "reference");
        if (tensor->second.dtype != spec.dtype || static_cast<int64_t>(tensor->second.bytes.size()) != spec.storage_bytes())
            throw WorkerFailure(FailureClass::Crash, file + ": tensor '" + spec.name + "' does not match the task's dtype and shape",
                                "reference");
        fixed.host_[i] = &tensor->second;
    }
    return fixed;
}

void FixedInputs::upload(size_t input, size_t set, const TensorGroup& group, cudaStream_t stream) {
    auto& done = uploaded_[input];
    if (done.size() <= set) done.resize(set + 1, false);
    if (done[set]) return;
    const HostTensor& t = *host_[input];
    check_cuda(cudaMemcpyAsync(group.buffer(input).data, t.bytes.data(), t.bytes.size(), cudaMemcpyHostToDevice, stream),
               "uploading fixed input");
    check_cuda(cudaStreamSynchronize(stream), "uploading fixed input");
    done[set] = true;
}

}  // namespace kp::worker
