#include "task/task_spec.h"

#include <regex>
#include <sstream>

#include <toml++/toml.h>

#include "task/task_sections.h"
#include "task/toml_checks.h"

namespace kp {

namespace fs = std::filesystem;

int64_t TensorSpec::element_count() const {
    int64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
}

int64_t TensorSpec::storage_elements() const {
    if (element_count() == 0) return 0;
    int64_t last = 0;
    for (size_t i = 0; i < shape.size(); ++i) last += (shape[i] - 1) * stride[i];
    return last + 1;
}

bool TensorSpec::is_contiguous() const {
    int64_t expected = 1;
    for (size_t i = shape.size(); i-- > 0;) {
        if (stride[i] != expected) return false;
        expected *= shape[i];
    }
    return true;
}

Tolerance TaskSpec::tolerance_for(const TensorSpec& output) const {
    Tolerance t{default_tolerance(output.dtype), default_tolerance(output.dtype)};
    if (tolerance) t = *tolerance;
    if (output.atol) t.atol = *output.atol;
    if (output.rtol) t.rtol = *output.rtol;
    return t;
}

int64_t TaskSpec::total_input_bytes() const {
    int64_t n = 0;
    for (const auto& t : inputs) n += t.storage_bytes();
    return n;
}

int64_t TaskSpec::total_output_bytes() const {
    int64_t n = 0;
    for (const auto& t : outputs) n += t.storage_bytes();
    return n;
}

bool TaskSpec::has_flag(const std::string& flag) const {
    return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

const std::vector<std::string>& known_task_flags() {
    static const std::vector<std::string> flags{"degenerate"};
    return flags;
}

const std::vector<std::pair<std::string, std::string>>& allowed_libraries() {
    static const std::vector<std::pair<std::string, std::string>> libs{
        {"cublas", "-lcublas"}, {"cublasLt", "-lcublasLt"}, {"curand", "-lcurand"}};
    return libs;
}

namespace {

using task_toml::as_number;
using task_toml::check_known_keys;
using task_toml::Problems;

Distribution parse_distribution(const toml::node* node, DType dtype, const fs::path& task_dir, const std::string& field,
                                Problems& problems) {
    Distribution d;
    if (!dtype_is_floating(dtype)) d = {DistributionKind::Integer, 0, dtype == DType::Bool ? 1.0 : 100.0, {}};
    if (dtype == DType::U8) d.b = 255;
    if (!node) return d;
    const auto* table = node->as_table();
    if (!table) {
        problems.add(node->source(), field, "must be a table such as { kind = \"normal\", mean = 0, std = 1 }");
        return d;
    }
    auto kind = (*table)["kind"].value<std::string>();
    if (!kind) {
        problems.add(node->source(), field + ".kind", "missing (uniform, normal, integer or fixed)");
        return d;
    }
    if (*kind == "uniform") {
        check_known_keys(*table, {"kind", "low", "high"}, field + ".", problems);
        d = {DistributionKind::Uniform, as_number((*table)["low"].node()).value_or(-1.0),
             as_number((*table)["high"].node()).value_or(1.0), {}};
        if (!(d.a < d.b)) problems.add(node->source(), field, "uniform needs low < high");
    } else if (*kind == "normal") {
        check_known_keys(*table, {"kind", "mean", "std"}, field + ".", problems);
        d = {DistributionKind::Normal, as_number((*table)["mean"].node()).value_or(0.0),
             as_number((*table)["std"].node()).value_or(1.0), {}};
        if (!(d.b > 0)) problems.add(node->source(), field, "normal needs std > 0");
    } else if (*kind == "integer") {
        check_known_keys(*table, {"kind", "low", "high"}, field + ".", problems);
        d = {DistributionKind::Integer, as_number((*table)["low"].node()).value_or(0.0),
             as_number((*table)["high"].node()).value_or(100.0), {}};
        if (!(d.a <= d.b)) problems.add(node->source(), field, "integer needs low <= high");
    } else if (*kind == "fixed") {
        check_known_keys(*table, {"kind", "file"}, field + ".", problems);
        auto file = (*table)["file"].value<std::string>();
        d.kind = DistributionKind::Fixed;
        if (!file) problems.add(node->source(), field + ".file", "missing (a safetensors file holding the values)");
        else if (!fs::is_regular_file(task_dir / *file)) problems.add(node->source(), field + ".file", "no such file: " + *file);
        else d.file = fs::absolute(task_dir / *file);
    } else {
        problems.add(node->source(), field + ".kind", "unknown distribution '" + *kind + "' (uniform, normal, integer, fixed)");
    }
    if (dtype_is_floating(dtype) && d.kind == DistributionKind::Integer) {
        // allowed: integer-valued floats are a legitimate choice (e.g. exact matmul checks)
    }
    if (!dtype_is_floating(dtype) && d.kind == DistributionKind::Normal)
        problems.add(node->source(), field, std::string("normal is not valid for ") + dtype_name(dtype));
    return d;
}

std::optional<TensorSpec> parse_tensor(const toml::table& table, const fs::path& task_dir, const std::string& field,
                                       bool is_output, Problems& problems) {
    std::vector<std::string> known{"name", "dtype", "shape", "stride", "distribution"};
    if (is_output) known.insert(known.end(), {"atol", "rtol"});
    check_known_keys(table, known, field + ".", problems);
    TensorSpec t;
    bool ok = true;
    auto name = table["name"].value<std::string>();
    // Dots are allowed: a module's parameters keep their state_dict names ("conv.weight").
    if (!name || !std::regex_match(*name, std::regex("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z0-9_]+)*"))) {
        problems.add(table.source(), field + ".name", name ? "must be an identifier (dots allowed: conv.weight)" : "missing");
        ok = false;
    } else {
        t.name = *name;
    }
    auto dtype_text = table["dtype"].value<std::string>();
    auto dtype = dtype_text ? parse_dtype(*dtype_text) : std::nullopt;
    if (!dtype) {
        const auto* n = table["dtype"].node();
        problems.add(n ? n->source() : table.source(), field + ".dtype",
                     dtype_text ? "unknown dtype '" + *dtype_text + "' (f32 f16 bf16 f64 i32 i64 u8 bool)" : "missing");
        ok = false;
    } else {
        t.dtype = *dtype;
    }
    const auto* shape = table["shape"].as_array();
    if (!shape || shape->size() > 8) {
        problems.add(shape ? shape->source() : table.source(), field + ".shape",
                     shape ? "must have 0 to 8 dimensions ([] is a scalar)" : "missing");
        ok = false;
    } else {
        for (const auto& dim : *shape) {
            auto v = dim.value<int64_t>();
            if (!v || *v <= 0) {
                problems.add(dim.source(), field + ".shape", "dimensions must be positive integers");
                ok = false;
                break;
            }
            t.shape.push_back(*v);
        }
    }
    if (const auto* stride = table["stride"].as_array()) {
        for (const auto& s : *stride) {
            auto v = s.value<int64_t>();
            if (!v || *v < 0) {
                problems.add(s.source(), field + ".stride", "strides must be non-negative integers");
                ok = false;
                break;
            }
            t.stride.push_back(*v);
        }
        if (ok && t.stride.size() != t.shape.size()) {
            problems.add(stride->source(), field + ".stride", "must have as many entries as shape");
            ok = false;
        }
    }
    if (ok && t.stride.empty() && !t.shape.empty()) {
        t.stride.assign(t.shape.size(), 1);
        for (size_t i = t.shape.size() - 1; i-- > 0;) t.stride[i] = t.stride[i + 1] * t.shape[i + 1];
    }
    if (is_output) {
        if (table.contains("distribution"))
            problems.add(table["distribution"].node()->source(), field + ".distribution", "outputs take no distribution");
        for (const char* key : {"atol", "rtol"}) {
            if (const auto* n = table[key].node()) {
                auto v = as_number(n);
                if (!v || *v < 0) problems.add(n->source(), field + "." + key, "must be a non-negative number");
                else (std::string(key) == "atol" ? t.atol : t.rtol) = *v;
            }
        }
    } else if (ok) {
        t.distribution = parse_distribution(table["distribution"].node(), t.dtype, task_dir, field + ".distribution", problems);
    }
    if (!ok) return std::nullopt;
    return t;
}

}  // namespace

Result<TaskSpec> load_task(const fs::path& directory_or_file) {
    fs::path file = fs::is_directory(directory_or_file) ? directory_or_file / "task.toml" : directory_or_file;
    if (!fs::exists(file)) return make_error(file.string() + ": no such task file (a task is a folder with task.toml)");
    toml::table root;
    try {
        root = toml::parse_file(file.string());
    } catch (const toml::parse_error& e) {
        std::ostringstream msg;
        msg << file.filename().string() << ":" << e.source().begin.line << ": syntax: " << e.description();
        return make_error(msg.str());
    }
    Problems problems(file.filename().string());
    TaskSpec task;
    task.toml_path = fs::absolute(file);
    task.directory = task.toml_path.parent_path();
    check_known_keys(root, {"name", "description", "flags", "input", "output", "tolerance", "cost", "reference", "build", "origin"},
                     "", problems);

    auto name = root["name"].value<std::string>();
    if (!name) problems.add_at(1, "name", "missing");
    else if (!std::regex_match(*name, std::regex("[A-Za-z0-9_-]+")))
        problems.add(root["name"].node()->source(), "name", "use letters, digits, '_' and '-' only");
    else task.name = *name;
    task.description = root["description"].value_or(std::string());

    auto parse_list = [&](const char* key, bool is_output, std::vector<TensorSpec>& into) {
        const auto* array = root[key].as_array();
        if (!array || array->empty()) {
            problems.add_at(1, key, std::string("at least one [[") + key + "]] table is required");
            return;
        }
        for (size_t i = 0; i < array->size(); ++i) {
            std::string field = std::string(key) + "[" + std::to_string(i) + "]";
            const auto* table = (*array)[i].as_table();
            if (!table) {
                problems.add((*array)[i].source(), field, "must be a table");
                continue;
            }
            if (auto t = parse_tensor(*table, task.directory, field, is_output, problems)) into.push_back(*t);
        }
    };
    parse_list("input", false, task.inputs);
    parse_list("output", true, task.outputs);
    {
        std::vector<std::string> seen;
        for (const auto* list : {&task.inputs, &task.outputs})
            for (const auto& t : *list) {
                if (std::find(seen.begin(), seen.end(), t.name) != seen.end())
                    problems.add_at(1, "name", "tensor name '" + t.name + "' is used twice");
                seen.push_back(t.name);
            }
    }

    if (const auto* tol = root["tolerance"].as_table()) {
        check_known_keys(*tol, {"atol", "rtol"}, "tolerance.", problems);
        Tolerance t{1e-4, 1e-4};
        for (const char* key : {"atol", "rtol"}) {
            if (const auto* n = (*tol)[key].node()) {
                auto v = as_number(n);
                if (!v || *v < 0) problems.add(n->source(), std::string("tolerance.") + key, "must be a non-negative number");
                else (std::string(key) == "atol" ? t.atol : t.rtol) = *v;
            }
        }
        task.tolerance = t;
    }

    if (const auto* cost = root["cost"].as_table()) {
        check_known_keys(*cost, {"flops", "bytes", "precision"}, "cost.", problems);
        auto flops = as_number((*cost)["flops"].node());
        if (!flops || *flops < 0)
            problems.add(cost->source(), "cost.flops", flops ? "must be >= 0" : "missing (0 for pure data movement)");
        else task.cost.flops = *flops;
        if (const auto* bytes = (*cost)["bytes"].node()) {
            if (bytes->value<std::string>() == std::optional<std::string>("auto")) task.cost.bytes_auto = true;
            else if (auto v = as_number(bytes); v && *v > 0) {
                task.cost.bytes = *v;
                task.cost.bytes_auto = false;
            } else problems.add(bytes->source(), "cost.bytes", "must be a positive number or \"auto\"");
        }
        auto precision = (*cost)["precision"].value_or(std::string("f32"));
        static const std::vector<std::string> precisions{"f32", "f64", "f16", "bf16", "tf32"};
        if (std::find(precisions.begin(), precisions.end(), precision) == precisions.end())
            problems.add((*cost)["precision"].node()->source(), "cost.precision",
                         "unknown precision '" + precision + "' (f32 f64 f16 bf16 tf32)");
        task.cost.precision = precision;
    } else {
        problems.add_at(1, "cost", "missing [cost] table (flops, bytes) for the roofline floor");
    }
    if (task.cost.bytes_auto) task.cost.bytes = static_cast<double>(task.total_input_bytes() + task.total_output_bytes());

    if (const auto* ref = root["reference"].as_table()) {
        check_known_keys(*ref, {"source", "data", "pytorch", "forward_inputs", "dtype", "tf32", "seed", "constants"}, "reference.",
                         problems);
        auto source = (*ref)["source"].value<std::string>();
        auto data = (*ref)["data"].value<std::string>();
        bool pytorch = ref->contains("pytorch");
        if (int(source.has_value()) + int(data.has_value()) + int(pytorch) != 1) {
            problems.add(ref->source(), "reference",
                         "give exactly one of source = \"file.cu\", data = \"folder\" or pytorch = \"problem.py\"");
        } else if (source) {
            fs::path p = task.directory / *source;
            if (!fs::is_regular_file(p)) problems.add((*ref)["source"].node()->source(), "reference.source", "no such file: " + p.string());
            else task.reference.source = p;
        } else if (data) {
            fs::path p = task.directory / *data;
            if (!fs::is_directory(p)) problems.add((*ref)["data"].node()->source(), "reference.data", "no such folder: " + p.string());
            else task.reference.data_dir = p;
        } else {
            task.reference.pytorch = task_toml::parse_pytorch_reference(*ref, task.directory, task.inputs.size(), problems);
        }
    } else {
        problems.add_at(1, "reference", "missing [reference] table");
    }
    task.flags = task_toml::parse_flags(root["flags"].node(), problems);
    task.origin = task_toml::parse_origin(root["origin"].node(), problems);

    if (const auto* build = root["build"].as_table()) {
        check_known_keys(*build, {"libraries"}, "build.", problems);
        if (const auto* libs = (*build)["libraries"].as_array()) {
            for (const auto& lib : *libs) {
                auto v = lib.value<std::string>();
                bool known = false;
                for (const auto& [allowed, flag] : allowed_libraries()) known = known || (v && *v == allowed);
                if (!known) problems.add(lib.source(), "build.libraries", "unknown library (allowed: cublas, cublasLt, curand)");
                else task.libraries.push_back(*v);
            }
        }
    }

    if (!problems.empty()) return make_error(problems.joined());
    return task;
}

nlohmann::json to_json(const TensorSpec& t) {
    static const char* kinds[] = {"uniform", "normal", "integer", "fixed"};
    nlohmann::json j{{"name", t.name}, {"dtype", dtype_name(t.dtype)}, {"shape", t.shape}, {"stride", t.stride}};
    j["distribution"] = {{"kind", kinds[static_cast<int>(t.distribution.kind)]}, {"a", t.distribution.a}, {"b", t.distribution.b}};
    if (t.distribution.kind == DistributionKind::Fixed) j["distribution"]["file"] = t.distribution.file.string();
    if (t.atol) j["atol"] = *t.atol;
    if (t.rtol) j["rtol"] = *t.rtol;
    return j;
}

nlohmann::json to_json(const TaskSpec& task) {
    nlohmann::json j{{"name", task.name}, {"description", task.description}, {"directory", task.directory.string()}};
    j["inputs"] = nlohmann::json::array();
    for (const auto& t : task.inputs) j["inputs"].push_back(to_json(t));
    j["outputs"] = nlohmann::json::array();
    for (const auto& t : task.outputs) {
        auto o = to_json(t);
        auto tol = task.tolerance_for(t);
        o["atol"] = tol.atol;
        o["rtol"] = tol.rtol;
        j["outputs"].push_back(o);
    }
    j["cost"] = {{"flops", task.cost.flops}, {"bytes", task.cost.bytes}, {"precision", task.cost.precision}};
    if (task.reference.source) j["reference"] = {{"source", task.reference.source->string()}};
    if (task.reference.data_dir) j["reference"] = {{"data", task.reference.data_dir->string()}};
    if (const auto& py = task.reference.pytorch)
        j["reference"] = {{"pytorch", py->source.string()}, {"forward_inputs", py->forward_inputs},
                          {"dtype", dtype_name(py->dtype)}, {"tf32", py->tf32}, {"seed", py->seed}};
    if (const auto& py = task.reference.pytorch) {
        j["reference"]["constants"] = nlohmann::json::array();
        for (const auto& c : py->constants)
            j["reference"]["constants"].push_back({{"name", c.name}, {"position", c.position}, {"value", c.value}});
    }
    j["libraries"] = task.libraries;
    j["flags"] = task.flags;
    return j;
}

}  // namespace kp
