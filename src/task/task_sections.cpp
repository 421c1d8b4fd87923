#include "task/task_sections.h"

#include <algorithm>

namespace kp::task_toml {

namespace fs = std::filesystem;

std::optional<PytorchReference> parse_pytorch_reference(const toml::table& ref, const fs::path& task_dir, size_t input_count,
                                                        Problems& problems) {
    PytorchReference py;
    bool ok = true;
    auto source = ref["pytorch"].value<std::string>();
    if (!source) {
        problems.add(ref["pytorch"].node()->source(), "reference.pytorch", "must be the name of a Python file");
        return std::nullopt;
    }
    if (!fs::is_regular_file(task_dir / *source)) {
        problems.add(ref["pytorch"].node()->source(), "reference.pytorch", "no such file: " + *source);
        ok = false;
    }
    py.source = fs::absolute(task_dir / *source);
    if (const auto* n = ref["forward_inputs"].node()) {
        auto v = n->value<int64_t>();
        if (!v || *v < 0 || static_cast<size_t>(*v) > input_count) {
            problems.add(n->source(), "reference.forward_inputs", "must be between 0 and the number of inputs");
            ok = false;
        } else {
            py.forward_inputs = static_cast<int>(*v);
        }
    } else {
        py.forward_inputs = static_cast<int>(input_count);  // no parameters: every input goes to forward()
    }
    if (auto dtype = ref["dtype"].value<std::string>()) {
        auto parsed = parse_dtype(*dtype);
        if (!parsed || !dtype_is_floating(*parsed)) {
            problems.add(ref["dtype"].node()->source(), "reference.dtype", "must be a floating dtype (f32 f16 bf16 f64)");
            ok = false;
        } else {
            py.dtype = *parsed;
        }
    }
    if (const auto* n = ref["tf32"].node()) {
        if (auto v = n->value<bool>()) py.tf32 = *v;
        else problems.add(n->source(), "reference.tf32", "must be true or false"), ok = false;
    }
    if (const auto* n = ref["seed"].node()) {
        if (auto v = n->value<int64_t>(); v && *v >= 0) py.seed = *v;
        else problems.add(n->source(), "reference.seed", "must be a non-negative integer"), ok = false;
    }
    if (const auto* n = ref["constants"].node()) {
        const auto* list = n->as_array();
        if (!list) problems.add(n->source(), "reference.constants", "must be a list of { name, position, value } tables"), ok = false;
        for (size_t i = 0; list && i < list->size(); ++i) {
            const auto* t = (*list)[i].as_table();
            PytorchReference::Constant c;
            auto name = t ? (*t)["name"].value<std::string>() : std::nullopt;
            auto position = t ? (*t)["position"].value<int64_t>() : std::nullopt;
            const toml::node* value = t ? (*t)["value"].node() : nullptr;
            if (value && value->is_integer()) c.value = *value->value<int64_t>();
            else if (value && value->is_floating_point()) c.value = *value->value<double>();
            else if (value && value->is_boolean()) c.value = *value->value<bool>();
            if (!name || !position || *position < 0 || c.value.is_null()) {
                problems.add((*list)[i].source(), "reference.constants", "each needs name, position >= 0 and a number or boolean value");
                ok = false;
                continue;
            }
            c.name = *name;
            c.position = static_cast<int>(*position);
            py.constants.push_back(c);
        }
    }
    if (!ok) return std::nullopt;
    return py;
}

std::vector<std::string> parse_flags(const toml::node* node, Problems& problems) {
    std::vector<std::string> flags;
    if (!node) return flags;
    const auto* array = node->as_array();
    if (!array) {
        problems.add(node->source(), "flags", "must be a list such as [\"degenerate\"]");
        return flags;
    }
    for (const auto& item : *array) {
        auto v = item.value<std::string>();
        const auto& known = known_task_flags();
        if (!v || std::find(known.begin(), known.end(), *v) == known.end())
            problems.add(item.source(), "flags", "unknown flag (known: degenerate)");
        else flags.push_back(*v);
    }
    return flags;
}

std::optional<TaskOrigin> parse_origin(const toml::node* node, Problems& problems) {
    if (!node) return std::nullopt;
    const auto* table = node->as_table();
    if (!table) {
        problems.add(node->source(), "origin", "must be a table");
        return std::nullopt;
    }
    task_fields::check_known_keys(*table, {"benchmark", "level", "problem", "file", "notes"}, "origin.", problems);
    TaskOrigin origin;
    origin.benchmark = (*table)["benchmark"].value_or(std::string());
    origin.level = static_cast<int>((*table)["level"].value_or(int64_t{0}));
    origin.problem = static_cast<int>((*table)["problem"].value_or(int64_t{0}));
    origin.file = (*table)["file"].value_or(std::string());
    if (const auto* notes = (*table)["notes"].as_array())
        for (const auto& n : *notes)
            if (auto v = n.value<std::string>()) origin.notes.push_back(*v);
    return origin;
}

}  // namespace kp::task_toml
