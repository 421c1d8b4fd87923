#include "task/task_toml_writer.h"

#include <sstream>

#include <fmt/format.h>
#include <toml++/toml.h>

namespace kp {

namespace fs = std::filesystem;

namespace {

std::string quoted(const std::string& text) {
    std::ostringstream out;
    out << toml::value<std::string>(text);
    return out.str();
}

std::string number(double v) {
    std::string text = fmt::format("{}", v);
    if (text.find_first_of(".eEn") == std::string::npos) text += ".0";  // stays a float in TOML
    return text;
}

std::string int_list(const std::vector<int64_t>& values) {
    std::string text = "[";
    for (size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + std::to_string(values[i]);
    return text + "]";
}

std::string string_list(const std::vector<std::string>& values) {
    std::string text = "[";
    for (size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + quoted(values[i]);
    return text + "]";
}

std::string relative_text(const fs::path& path, const fs::path& base) {
    std::error_code ec;
    fs::path rel = fs::relative(path, base, ec);
    return (ec || rel.empty()) ? path.string() : rel.string();
}

std::string distribution(const Distribution& d, const fs::path& base) {
    switch (d.kind) {
        case DistributionKind::Uniform: return fmt::format("{{ kind = \"uniform\", low = {}, high = {} }}", number(d.a), number(d.b));
        case DistributionKind::Normal: return fmt::format("{{ kind = \"normal\", mean = {}, std = {} }}", number(d.a), number(d.b));
        case DistributionKind::Integer: return fmt::format("{{ kind = \"integer\", low = {}, high = {} }}", number(d.a), number(d.b));
        case DistributionKind::Fixed: return fmt::format("{{ kind = \"fixed\", file = {} }}", quoted(relative_text(d.file, base)));
    }
    return "";
}

void write_tensor(std::string& out, const char* table, const TensorSpec& t, const fs::path& base) {
    out += fmt::format("\n[[{}]]\nname = {}\ndtype = \"{}\"\nshape = {}\n", table, quoted(t.name), dtype_name(t.dtype),
                       int_list(t.shape));
    if (!t.is_contiguous()) out += "stride = " + int_list(t.stride) + "\n";
    if (std::string(table) == "input") out += "distribution = " + distribution(t.distribution, base) + "\n";
    if (t.atol) out += "atol = " + number(*t.atol) + "\n";
    if (t.rtol) out += "rtol = " + number(*t.rtol) + "\n";
}

}  // namespace

std::string task_to_toml(const TaskSpec& task) {
    const fs::path& base = task.directory;
    std::string out = fmt::format("name = {}\ndescription = {}\n", quoted(task.name), quoted(task.description));
    if (!task.flags.empty()) out += "flags = " + string_list(task.flags) + "\n";
    for (const auto& t : task.inputs) write_tensor(out, "input", t, base);
    for (const auto& t : task.outputs) write_tensor(out, "output", t, base);
    if (task.tolerance)
        out += fmt::format("\n[tolerance]\natol = {}\nrtol = {}\n", number(task.tolerance->atol), number(task.tolerance->rtol));
    out += fmt::format("\n[cost]\nflops = {}\nbytes = {}\nprecision = \"{}\"\n", number(task.cost.flops),
                       task.cost.bytes_auto ? std::string("\"auto\"") : number(task.cost.bytes), task.cost.precision);
    out += "\n[reference]\n";
    if (task.reference.source) out += "source = " + quoted(relative_text(*task.reference.source, base)) + "\n";
    if (task.reference.data_dir) out += "data = " + quoted(relative_text(*task.reference.data_dir, base)) + "\n";
    if (const auto& py = task.reference.pytorch)
        out += fmt::format("pytorch = {}\nforward_inputs = {}\ndtype = \"{}\"\ntf32 = {}\nseed = {}\n",
                           quoted(relative_text(py->source, base)), py->forward_inputs, dtype_name(py->dtype),
                           py->tf32 ? "true" : "false", py->seed);
    if (const auto& py = task.reference.pytorch; py && !py->constants.empty()) {
        out += "constants = [";
        for (size_t i = 0; i < py->constants.size(); ++i) {
            const auto& c = py->constants[i];
            std::string value = c.value.is_boolean() ? (c.value.get<bool>() ? "true" : "false")
                                : c.value.is_number_integer() ? std::to_string(c.value.get<int64_t>())
                                                              : number(c.value.get<double>());
            out += fmt::format("{}{{ name = {}, position = {}, value = {} }}", i ? ", " : "", quoted(c.name), c.position, value);
        }
        out += "]\n";
    }
    if (!task.libraries.empty() || task.compile_timeout_seconds) {
        out += "\n[build]\n";
        if (!task.libraries.empty()) out += "libraries = " + string_list(task.libraries) + "\n";
        if (task.compile_timeout_seconds) out += "compile_timeout_s = " + std::to_string(*task.compile_timeout_seconds) + "\n";
    }
    if (const auto& o = task.origin) {
        out += fmt::format("\n[origin]\nbenchmark = {}\nlevel = {}\nproblem = {}\nfile = {}\n", quoted(o->benchmark), o->level,
                           o->problem, quoted(o->file));
        if (!o->notes.empty()) out += "notes = " + string_list(o->notes) + "\n";
    }
    return out;
}

}  // namespace kp
