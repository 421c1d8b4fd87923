#include "kernelbench/first_version.h"

#include <fmt/format.h>

#include "common/files.h"
#include "eval/roofline_floor.h"
#include "gpu/datasheets.h"

namespace kp::kernelbench {

namespace {

std::string shape_text(const std::vector<int64_t>& shape) {
    std::string text = "[";
    for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
    return text + "]";
}

std::string distribution_text(const Distribution& d) {
    switch (d.kind) {
        case DistributionKind::Uniform: return fmt::format("uniform in [{:g}, {:g})", d.a, d.b);
        case DistributionKind::Normal: return fmt::format("normal, mean {:g}, std {:g}", d.a, d.b);
        case DistributionKind::Integer: return fmt::format("integers in [{:g}, {:g}]", d.a, d.b);
        case DistributionKind::Fixed: return "the module's own values (the same in every call)";
    }
    return "";
}

}  // namespace

Result<llm::WriterInput> writer_input_for(const TaskSpec& task) {
    if (!task.reference.pytorch) return make_error("the task has no PyTorch reference to write a kernel from");
    auto source = read_text_file(task.reference.pytorch->source);
    if (!source.ok()) return source.error();
    llm::WriterInput in;
    in.task = task.name + ": " + task.description;
    if (task.origin)
        for (const auto& note : task.origin->notes) in.task += "\n- " + note;
    in.pytorch_source = *source;
    const int forward = task.reference.pytorch->forward_inputs;
    for (size_t i = 0; i < task.inputs.size(); ++i) {
        const auto& t = task.inputs[i];
        in.tensors += fmt::format("- inputs[{}] `{}`: {} {}, {} ({})\n", i, t.name, dtype_name(t.dtype), shape_text(t.shape),
                                  distribution_text(t.distribution),
                                  static_cast<int>(i) < forward ? "a forward argument" : "a parameter or buffer of the module");
    }
    for (size_t i = 0; i < task.outputs.size(); ++i) {
        const auto& t = task.outputs[i];
        auto tol = task.tolerance_for(t);
        in.tensors += fmt::format("- outputs[{}] `{}`: {} {}; must match within atol {:g} + rtol {:g} * |expected|\n", i, t.name,
                                  dtype_name(t.dtype), shape_text(t.shape), tol.atol, tol.rtol);
    }
    for (const auto& c : task.reference.pytorch->constants)
        in.tensors += fmt::format("- forward's argument `{}` is always {} (not passed to the kernel: write it in)\n", c.name, c.value.dump());
    gpu::DeviceInfo h200;  // the GPU kernelpro targets; the floor only guides the writer
    h200.name = "NVIDIA H200";
    auto ceilings = gpu::datasheet_ceilings(h200);
    auto floor = ceilings ? roofline_floor(task, *ceilings, "datasheet H200") : std::nullopt;
    if (!floor) {
        in.roofline = fmt::format("{:.3g} bytes and {:.3g} FLOP ({}) at the least.", task.cost.bytes, task.cost.flops, task.cost.precision);
        return in;
    }
    in.roofline = fmt::format("No kernel can beat {:.1f} us on an H200: {:.3g} bytes at peak DRAM bandwidth take {:.1f} us, {:.3g} FLOP "
                              "({}) at peak take {:.1f} us; the task is {}-bound at the floor.",
                              floor->seconds() * 1e6, task.cost.bytes, floor->memory_seconds * 1e6, task.cost.flops,
                              task.cost.precision, floor->compute_seconds * 1e6,
                              floor->memory_seconds >= floor->compute_seconds ? "memory" : "compute");
    return in;
}

std::string describe_pytorch_task(const TaskSpec& task) {
    auto in = writer_input_for(task);
    if (!in.ok()) return task.name + ": " + task.description;
    return in->task + "\n\nTensors, in kp_forward's order:\n" + in->tensors + "\n" + in->roofline +
           "\n\nThe PyTorch module the kernel must match:\n```python\n" + in->pytorch_source + "\n```";
}

Result<FirstVersion> write_first_version(llm::LlmAgents& agents, const TaskSpec& task) {
    auto input = writer_input_for(task);
    if (!input.ok()) return input.error();
    FirstVersion first;
    agents.set_exchange_sink([&first](const llm::LlmExchange& e) { first.exchanges.push_back(e); });
    auto code = agents.writer(*input);
    agents.set_exchange_sink(nullptr);
    if (!code.ok()) return make_error("the LLM writer gave no usable first version: " + code.error().message);
    first.code = std::move(*code);
    return first;
}

void record_writer_exchanges(store::RunStore& store, std::int64_t run_id, const std::vector<llm::LlmExchange>& exchanges) {
    for (const auto& e : exchanges) {
        store::LlmExchangeRecord r;
        r.run_id = run_id;
        r.node_id = 0;
        r.agent = e.role;
        r.model = e.model;
        r.prompt = e.prompt;
        r.reply = e.ok ? e.reply : e.reply + "\n[unusable: " + e.error + "]";
        r.tokens_in = e.tokens_in;
        r.tokens_out = e.tokens_out;
        r.latency_seconds = e.latency_s;
        r.cost_usd = e.cost;
        (void)store.record_llm_exchange(r);  // bookkeeping: a failure here must not fail the run
    }
}

std::string no_starting_kernel_message(const TaskSpec& task) {
    if (task.reference.pytorch)
        return "task " + task.name + " has no starting kernel (its reference is a PyTorch module): pass --llm PROVIDER:MODEL "
               "(or script:FILE) to have the writer write the first version, or a starting kernel with --from KERNEL.cu "
               "(bench: --from-dir DIR)";
    return "task " + task.name + " has no starting kernel: pass --from KERNEL.cu (it has no candidates/tuned.cu and no reference "
           "source)";
}

}  // namespace kp::kernelbench
