#include "eval/worker/tensor_sets.h"

#include "eval/worker/worker_failure.h"

namespace kp::worker {

std::vector<TensorLayout> layouts_from_task_json(const nlohmann::json& task, const char* key) {
    std::vector<TensorLayout> layouts;
    for (const auto& t : task.at(key)) {
        TensorLayout l;
        l.spec.name = t.at("name");
        l.spec.dtype = parse_dtype(t.at("dtype").get<std::string>()).value();
        l.spec.shape = t.at("shape").get<std::vector<int64_t>>();
        l.spec.stride = t.at("stride").get<std::vector<int64_t>>();
        const auto& d = t.at("distribution");
        std::string kind = d.value("kind", "uniform");
        l.spec.distribution.kind = kind == "normal"    ? DistributionKind::Normal
                                   : kind == "integer" ? DistributionKind::Integer
                                   : kind == "fixed"   ? DistributionKind::Fixed
                                                       : DistributionKind::Uniform;
        l.spec.distribution.file = d.value("file", "");
        l.spec.distribution.a = d.value("a", -1.0);
        l.spec.distribution.b = d.value("b", 1.0);
        l.atol = t.value("atol", 0.0);
        l.rtol = t.value("rtol", 0.0);
        layouts.push_back(l);
    }
    return layouts;
}

namespace {
kp_tensor make_view(const TensorSpec& spec, void* data) {
    kp_tensor v{};
    v.data = data;
    v.dtype = static_cast<kp_dtype>(spec.dtype);
    v.ndim = static_cast<int>(spec.shape.size());
    for (size_t i = 0; i < spec.shape.size(); ++i) {
        v.shape[i] = spec.shape[i];
        v.stride[i] = spec.stride[i];
    }
    return v;
}
}  // namespace

size_t BufferLayout::next_offset() {
    if (seed_ == 0) return 0;
    uint64_t x = seed_ + 0x9E3779B97F4A7C15ull * ++count_;
    x = (x ^ (x >> 31)) * 0xBF58476D1CE4E5B9ull;
    return 256 * static_cast<size_t>(1 + (x >> 40) % 255);
}

TensorGroup::TensorGroup(const std::vector<TensorLayout>& layouts, BufferLayout& layout) {
    for (const auto& l : layouts) {
        DeviceBuffer b;
        b.dtype = l.spec.dtype;
        b.elements = l.spec.storage_elements();
        size_t offset = layout.next_offset();
        void* allocation = nullptr;
        check_cuda(cudaMalloc(&allocation, std::max<size_t>(b.bytes(), 1) + offset), "allocating " + l.spec.name, FailureClass::OutOfMemory);
        b.data = static_cast<char*>(allocation) + offset;
        allocations_.push_back(allocation);
        buffers_.push_back(b);
        views_.push_back(make_view(l.spec, b.data));
    }
}

TensorGroup::TensorGroup(TensorGroup&& other) noexcept { *this = std::move(other); }

TensorGroup& TensorGroup::operator=(TensorGroup&& other) noexcept {
    std::swap(buffers_, other.buffers_);
    std::swap(allocations_, other.allocations_);
    std::swap(views_, other.views_);
    return *this;
}

TensorGroup::~TensorGroup() {
    for (void* a : allocations_) cudaFree(a);
}

void TensorGroup::poison(unsigned char pattern, cudaStream_t stream) const {
    for (const auto& b : buffers_) check_cuda(cudaMemsetAsync(b.data, pattern, b.bytes(), stream), "poisoning outputs");
}

std::vector<kp_tensor> shape_only_views(const std::vector<TensorLayout>& layouts) {
    std::vector<kp_tensor> views;
    for (const auto& l : layouts) views.push_back(make_view(l.spec, nullptr));
    return views;
}

}  // namespace kp::worker
