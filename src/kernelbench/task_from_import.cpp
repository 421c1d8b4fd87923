#include "kernelbench/task_from_import.h"

#include <cctype>

#include <fmt/format.h>

#include "common/hash.h"

namespace kp::kernelbench {

namespace fs = std::filesystem;

namespace {

Distribution distribution_from(const nlohmann::json& d) {
    std::string kind = d.at("kind");
    if (kind == "normal") return {DistributionKind::Normal, d.value("mean", 0.0), d.value("std", 1.0), {}};
    if (kind == "integer") return {DistributionKind::Integer, d.value("low", 0.0), d.value("high", 1.0), {}};
    return {DistributionKind::Uniform, d.value("low", 0.0), d.value("high", 1.0), {}};
}

Result<TensorSpec> tensor_from(const nlohmann::json& j) {
    TensorSpec t;
    t.name = j.at("name");
    auto dtype = parse_dtype(j.at("dtype").get<std::string>());
    if (!dtype) return make_error("tensor '" + t.name + "': unknown dtype " + j.at("dtype").get<std::string>());
    t.dtype = *dtype;
    t.shape = j.at("shape").get<std::vector<int64_t>>();
    t.stride.assign(t.shape.size(), 1);
    for (size_t i = t.shape.size(); i-- > 1;) t.stride[i - 1] = t.stride[i] * t.shape[i];
    return t;
}

}  // namespace

Result<TaskSpec> task_from_import(const nlohmann::json& facts, const fs::path& task_dir, const TaskNaming& naming) {
    try {
        TaskSpec task;
        task.directory = fs::absolute(task_dir);
        task.toml_path = task.directory / "task.toml";
        task.name = naming.name;
        task.description = naming.description;
        if (auto summary = facts.value("summary", std::string()); !summary.empty()) task.description += ": " + summary;
        for (const auto& j : facts.at("inputs")) {
            auto t = tensor_from(j);
            if (!t.ok()) return t.error();
            t->distribution = distribution_from(j.at("distribution"));
            task.inputs.push_back(*t);
        }
        const fs::path parameters = task.directory / facts.at("files").value("parameters", "");
        for (const auto& j : facts.at("parameters")) {
            auto t = tensor_from(j);
            if (!t.ok()) return t.error();
            t->distribution = {DistributionKind::Fixed, 0, 0, parameters};
            task.inputs.push_back(*t);
        }
        const double tolerance = facts.at("tolerance").get<double>();
        for (const auto& j : facts.at("outputs")) {
            auto t = tensor_from(j);
            if (!t.ok()) return t.error();
            if (dtype_is_floating(t->dtype)) t->atol = t->rtol = tolerance;  // integer outputs stay exact
            task.outputs.push_back(*t);
        }
        task.cost.flops = facts.at("flops").get<double>();
        task.cost.bytes_auto = true;
        task.cost.bytes = static_cast<double>(task.total_input_bytes() + task.total_output_bytes());
        task.cost.precision = facts.at("cost_precision").get<std::string>();
        PytorchReference py;
        py.source = task.directory / facts.at("files").at("source").get<std::string>();
        py.forward_inputs = static_cast<int>(facts.at("inputs").size());
        const std::string precision = facts.value("precision", "fp32");
        py.dtype = precision == "bf16" ? DType::BF16 : precision == "fp16" ? DType::F16 : DType::F32;
        py.tf32 = false;
        py.seed = facts.value("seed", int64_t{42});
        for (const auto& c : facts.value("constants", nlohmann::json::array()))
            py.constants.push_back({c.at("name").get<std::string>(), c.at("position").get<int>(), c.at("value")});
        task.reference.pytorch = py;
        task.flags = facts.value("flags", std::vector<std::string>{});
        task.origin = naming.origin;
        task.origin->notes = facts.value("notes", std::vector<std::string>{});
        return task;
    } catch (const std::exception& e) {
        return make_error(std::string("the importer's description is incomplete: ") + e.what());
    }
}

std::string task_name_for(const fs::path& problem_file, int level, int problem, const std::string& precision) {
    std::string stem = problem_file.stem().string();
    if (level > 0) {
        // "19_ReLU" -> "ReLU": the number is written separately, zero-padded so names sort.
        size_t underscore = stem.find('_');
        if (underscore != std::string::npos && underscore > 0 && std::isdigit(static_cast<unsigned char>(stem[0])))
            stem = stem.substr(underscore + 1);
    }
    std::string clean;
    for (char c : stem) {
        const char kept = (std::isalnum(static_cast<unsigned char>(c)) || c == '-') ? c : '_';
        if (kept == '_' && (clean.empty() || clean.back() == '_')) continue;  // "conv__3D" -> "conv_3D"
        clean += kept;
    }
    while (!clean.empty() && clean.back() == '_') clean.pop_back();
    if (clean.empty()) clean = "problem";
    const std::string prefix = level > 0 ? fmt::format("kb_l{}_{:03}_", level, problem) : "";
    const std::string suffix = precision != "fp32" ? "_" + precision : "";
    // A task name has at most kTaskNameMax characters (it becomes part of folder names), and
    // KernelBench's names run to 97 ("79_conv_transposed_1D_asymmetric_input_square_kernel___padded
    // ____strided____dilated__"): the description is cut, the problem number keeps names unique;
    // without one (a plain import) a short hash of the whole name does.
    const size_t room = kTaskNameMax - prefix.size() - suffix.size();
    if (clean.size() > room) {
        const std::string tag = level > 0 ? "" : "_" + sha256_hex(clean).substr(0, 6);  // the same name on every build
        clean = clean.substr(0, room - tag.size());
        while (!clean.empty() && clean.back() == '_') clean.pop_back();
        clean += tag;
    }
    return prefix + clean + suffix;
}

}  // namespace kp::kernelbench
