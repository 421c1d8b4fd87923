#include "task/task_spec.h"

#include <algorithm>
#include <map>
#include <regex>
#include <sstream>

#include <toml++/toml.h>

#include "common/files.h"
#include "common/utf8.h"
#include "task/task_sections.h"
#include "task/tensor_spec_parser.h"
#include "task/toml_fields.h"

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

bool TaskSpec::allows_library(const std::string& library) const {
    return std::find(libraries.begin(), libraries.end(), library) != libraries.end();
}

const std::vector<std::string>& known_task_flags() {
    static const std::vector<std::string> flags{"degenerate"};
    return flags;
}

const std::vector<std::pair<std::string, std::string>>& allowed_libraries() {
    static const std::vector<std::pair<std::string, std::string>> libs{
        {"cublas", "-lcublas"}, {"cublasLt", "-lcublasLt"}, {"curand", "-lcurand"},
        // Headers, not a library: its flags come from the install found at build time
        // (build/cutlass_install.h), and it admits cluster launches (docs/cutlass.md).
        {"cutlass", ""}};
    return libs;
}

namespace {

using task_fields::Problems;


// A path inside the task folder that holds a regular file (or a folder); never throws.
bool has_entry(const fs::path& path, fs::file_type type) {
    std::error_code error;
    return fs::status(path, error).type() == type;
}

void parse_name(const toml::table& root, TaskSpec& task, Problems& problems) {
    static const std::regex allowed("[A-Za-z0-9_-]+");
    auto name = task_fields::string_value(root, "name", "name", problems);
    if (!name) {
        if (!root.contains("name")) problems.add_at(1, "name", "missing");
    } else if (!std::regex_match(*name, allowed)) {
        problems.add(root.get("name")->source(), "name", "use letters, digits, '_' and '-' only");
    } else if (name->size() > kTaskNameMax) {
        problems.add(root.get("name")->source(), "name", "at most " + std::to_string(kTaskNameMax) + " characters");
    } else {
        task.name = *name;
    }
    task.description = task_fields::string_value(root, "description", "description", problems).value_or("");
}

void parse_tensors(const toml::table& root, TaskSpec& task, Problems& problems) {
    std::map<std::string, int> seen;  // name -> how often
    auto parse_list = [&](const char* key, bool is_output, std::vector<TensorSpec>& into) {
        const toml::node* node = root.get(key);
        const auto* array = node ? node->as_array() : nullptr;
        if (!array || array->empty()) {
            problems.add(task_fields::where(node, root), key, std::string("at least one [[") + key + "]] table is required");
            return;
        }
        for (size_t i = 0; i < array->size(); ++i) {
            std::string field = std::string(key) + "[" + std::to_string(i) + "]";
            const auto* table = (*array)[i].as_table();
            if (!table) {
                problems.add((*array)[i].source(), field, "must be a table");
                continue;
            }
            auto t = parse_tensor(*table, task.directory, field, is_output, problems);
            if (!t) continue;
            if (seen[t->name]++ > 0)
                problems.add(table->get("name")->source(), field + ".name", "tensor name '" + t->name + "' is used twice");
            into.push_back(*t);
        }
    };
    parse_list("input", false, task.inputs);
    parse_list("output", true, task.outputs);
    int64_t total = 0;
    for (const auto* list : {&task.inputs, &task.outputs})
        for (const auto& t : *list) total += t.storage_bytes();  // each at most kMaxTaskTensorBytes: no overflow
    if (total > kMaxTaskTensorBytes)
        problems.add_at(1, "input/output", "the tensors need " + std::to_string(total >> 30) + " GiB together; at most " +
                                               std::to_string(kMaxTaskTensorBytes >> 30) + " GiB fit an evaluation");
}

void parse_tolerance(const toml::table& root, TaskSpec& task, Problems& problems) {
    const toml::node* node = root.get("tolerance");
    if (!node) return;
    const auto* tol = node->as_table();
    if (!tol) return problems.add(node->source(), "tolerance", "must be a table (atol, rtol)");
    task_fields::check_known_keys(*tol, {"atol", "rtol"}, "tolerance.", problems);
    Tolerance t{1e-4, 1e-4};
    for (const char* key : {"atol", "rtol"}) {
        std::string field = std::string("tolerance.") + key;
        auto v = task_fields::finite_number(*tol, key, field, problems);
        if (v && *v < 0) problems.add(tol->get(key)->source(), field, "must be a non-negative number");
        else if (v) (std::string(key) == "atol" ? t.atol : t.rtol) = *v;
    }
    task.tolerance = t;
}

void parse_cost(const toml::table& root, TaskSpec& task, Problems& problems) {
    const toml::node* node = root.get("cost");
    const auto* cost = node ? node->as_table() : nullptr;
    if (!cost) {
        problems.add(task_fields::where(node, root), "cost", "missing [cost] table (flops, bytes) for the roofline floor");
        return;
    }
    task_fields::check_known_keys(*cost, {"flops", "bytes", "precision"}, "cost.", problems);
    auto flops = task_fields::finite_number(*cost, "flops", "cost.flops", problems);
    if (!cost->contains("flops")) problems.add(cost->source(), "cost.flops", "missing (0 for pure data movement)");
    else if (flops && *flops < 0) problems.add(cost->get("flops")->source(), "cost.flops", "must be >= 0");
    else if (flops) task.cost.flops = *flops;
    if (const auto* bytes = cost->get("bytes")) {
        if (const auto* text = bytes->as_string(); text && text->get() == "auto") task.cost.bytes_auto = true;
        else if (auto v = task_fields::finite_number(*cost, "bytes", "cost.bytes", problems); v && *v > 0) {
            task.cost.bytes = *v;
            task.cost.bytes_auto = false;
        } else if (bytes->is_string() || v) {
            problems.add(bytes->source(), "cost.bytes", "must be a positive number or \"auto\"");
        }
    }
    static const std::vector<std::string> precisions{"f32", "f64", "f16", "bf16", "tf32"};
    auto precision = task_fields::string_value(*cost, "precision", "cost.precision", problems).value_or("f32");
    if (std::find(precisions.begin(), precisions.end(), precision) == precisions.end())
        problems.add(cost->get("precision")->source(), "cost.precision",
                     "unknown precision '" + precision + "' (f32 f64 f16 bf16 tf32)");
    task.cost.precision = precision;
}

void parse_reference(const toml::table& root, TaskSpec& task, Problems& problems) {
    const toml::node* node = root.get("reference");
    const auto* ref = node ? node->as_table() : nullptr;
    if (!ref) {
        problems.add(task_fields::where(node, root), "reference", "missing [reference] table");
        return;
    }
    task_fields::check_known_keys(*ref, {"source", "data", "pytorch", "forward_inputs", "dtype", "tf32", "seed", "constants"},
                                  "reference.", problems);
    auto source = task_fields::string_value(*ref, "source", "reference.source", problems);
    auto data = task_fields::string_value(*ref, "data", "reference.data", problems);
    const int given = int(ref->contains("source")) + int(ref->contains("data")) + int(ref->contains("pytorch"));
    if (given != 1) {
        problems.add(ref->source(), "reference",
                     "give exactly one of source = \"file.cu\", data = \"folder\" or pytorch = \"problem.py\"");
    } else if (ref->contains("pytorch")) {
        task.reference.pytorch = task_toml::parse_pytorch_reference(*ref, task.directory, task.inputs.size(), problems);
    } else if (source) {
        fs::path p = task.directory / *source;
        if (!has_entry(p, fs::file_type::regular))
            problems.add(ref->get("source")->source(), "reference.source", "no such file: " + path_text(p));
        else task.reference.source = p;
    } else if (data) {
        fs::path p = task.directory / *data;
        if (!has_entry(p, fs::file_type::directory))
            problems.add(ref->get("data")->source(), "reference.data", "no such folder: " + path_text(p));
        else task.reference.data_dir = p;
    }
}

void parse_build(const toml::table& root, TaskSpec& task, Problems& problems) {
    const toml::node* node = root.get("build");
    if (!node) return;
    const auto* build = node->as_table();
    if (!build) return problems.add(node->source(), "build", "must be a table (libraries, compile_timeout_s)");
    task_fields::check_known_keys(*build, {"libraries", "compile_timeout_s"}, "build.", problems);
    if (auto limit = task_fields::finite_number(*build, "compile_timeout_s", "build.compile_timeout_s", problems)) {
        if (*limit < 1 || *limit > 3600 || *limit != static_cast<double>(static_cast<int>(*limit)))
            problems.add(build->get("compile_timeout_s")->source(), "build.compile_timeout_s",
                         "must be a whole number of seconds from 1 to 3600");
        else task.compile_timeout_seconds = static_cast<int>(*limit);
    }
    const toml::node* libraries = build->get("libraries");
    if (!libraries) return;
    const auto* list = libraries->as_array();
    if (!list)
        return problems.add(libraries->source(), "build.libraries",
                            "must be an array of names such as [\"cublas\"], not " + task_fields::type_name(*libraries));
    for (const auto& lib : *list) {
        const auto* name = lib.as_string();
        bool known = false;
        for (const auto& [allowed, flag] : allowed_libraries()) known = known || (name && name->get() == allowed);
        std::string names;
        for (const auto& [allowed, flag] : allowed_libraries()) names += (names.empty() ? "" : ", ") + allowed;
        if (!known) problems.add(lib.source(), "build.libraries", "unknown library (allowed: " + names + ")");
        else task.libraries.push_back(name->get());
    }
}

// task.toml of a folder (or the file itself), as the user named it; never throws.
Result<fs::path> task_file(const fs::path& directory_or_file) {
    std::error_code error;
    auto status = fs::status(directory_or_file, error);
    if (error && error != std::errc::no_such_file_or_directory)
        return make_error(path_text(directory_or_file) + ": cannot open the task: " + error.message());
    fs::path file = status.type() == fs::file_type::directory ? directory_or_file / "task.toml" : directory_or_file;
    auto file_status = fs::status(file, error);
    if (file_status.type() == fs::file_type::not_found || (error && error == std::errc::no_such_file_or_directory))
        return make_error(path_text(file) + ": no such task file (a task is a folder with task.toml)");
    if (error) return make_error(path_text(file) + ": cannot open the task file: " + error.message());
    if (file_status.type() != fs::file_type::regular) return make_error(path_text(file) + ": not a file (a task is a folder with task.toml)");
    return file;
}

}  // namespace

Result<TaskSpec> load_task(const fs::path& directory_or_file) {
    auto file = task_file(directory_or_file);
    if (!file.ok()) return file.error();
    auto text = read_text_file(*file);
    if (!text.ok()) return text.error();
    std::error_code error;
    fs::path absolute = fs::absolute(*file, error);
    return parse_task(*text, error ? *file : absolute);
}

Result<TaskSpec> parse_task(const std::string& text, const fs::path& toml_path) {
    toml::table root;
    try {
        root = toml::parse(text, toml_path.string());
    } catch (const toml::parse_error& e) {
        std::ostringstream msg;
        msg << path_text(toml_path.filename()) << ":" << e.source().begin.line << ": syntax: " << one_line(e.description());
        return make_error(msg.str());
    }
    Problems problems(path_text(toml_path.filename()));
    TaskSpec task;
    task.toml_path = toml_path;
    task.directory = toml_path.parent_path();
    task_fields::check_known_keys(
        root, {"name", "description", "flags", "input", "output", "tolerance", "cost", "reference", "build", "origin"}, "", problems);
    parse_name(root, task, problems);
    parse_tensors(root, task, problems);
    parse_tolerance(root, task, problems);
    parse_cost(root, task, problems);
    if (task.cost.bytes_auto) task.cost.bytes = static_cast<double>(task.total_input_bytes() + task.total_output_bytes());
    parse_reference(root, task, problems);
    parse_build(root, task, problems);
    task.flags = task_toml::parse_flags(root.get("flags"), problems);
    task.origin = task_toml::parse_origin(root.get("origin"), problems);
    if (!problems.empty()) return make_error(problems.joined());
    return task;
}

nlohmann::json to_json(const TensorSpec& t) {
    static const char* kinds[] = {"uniform", "normal", "integer", "fixed"};
    nlohmann::json j{{"name", t.name}, {"dtype", dtype_name(t.dtype)}, {"shape", t.shape}, {"stride", t.stride}};
    j["distribution"] = {{"kind", kinds[static_cast<int>(t.distribution.kind)]}, {"a", t.distribution.a}, {"b", t.distribution.b}};
    if (t.distribution.kind == DistributionKind::Fixed) j["distribution"]["file"] = path_text(t.distribution.file);
    if (t.atol) j["atol"] = *t.atol;
    if (t.rtol) j["rtol"] = *t.rtol;
    return j;
}

nlohmann::json to_json(const TaskSpec& task) {
    nlohmann::json j{{"name", task.name}, {"description", task.description}, {"directory", path_text(task.directory)}};
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
    if (task.reference.source) j["reference"] = {{"source", path_text(*task.reference.source)}};
    if (task.reference.data_dir) j["reference"] = {{"data", path_text(*task.reference.data_dir)}};
    if (const auto& py = task.reference.pytorch) {
        j["reference"] = {{"pytorch", path_text(py->source)}, {"forward_inputs", py->forward_inputs},
                          {"dtype", dtype_name(py->dtype)}, {"tf32", py->tf32}, {"seed", py->seed}};
        j["reference"]["constants"] = nlohmann::json::array();
        for (const auto& c : py->constants)
            j["reference"]["constants"].push_back({{"name", c.name}, {"position", c.position}, {"value", c.value}});
    }
    j["libraries"] = task.libraries;
    if (task.compile_timeout_seconds) j["compile_timeout_s"] = *task.compile_timeout_seconds;
    j["flags"] = task.flags;
    return j;
}

}  // namespace kp
