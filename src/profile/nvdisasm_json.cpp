#include "profile/nvdisasm_json.h"

#include <nlohmann/json.hpp>

namespace kp::profile {
namespace {

// sm_90 instructions are 128 bits wide.
constexpr std::uint64_t kInstructionBytes = 16;

std::string string_or_empty(const nlohmann::json& object, const char* key) {
    auto it = object.find(key);
    return (it != object.end() && it->is_string()) ? it->get<std::string>() : std::string();
}

SassInstruction read_instruction(const nlohmann::json& item, std::uint64_t offset) {
    SassInstruction instruction;
    instruction.offset = offset;
    instruction.predicate = string_or_empty(item, "predicate");
    instruction.opcode = string_or_empty(item, "opcode");
    instruction.operands = split_sass_operands(string_or_empty(item, "operands"));
    auto attributes = item.find("other-attributes");
    if (attributes != item.end() && attributes->is_object()) {
        auto flow = attributes->find("control-flow");
        instruction.control_flow = flow != attributes->end() && flow->is_string() && flow->get<std::string>() == "True";
    }
    return instruction;
}

}  // namespace

Result<SassProgram> parse_nvdisasm_json(std::string_view text) {
    nlohmann::json document = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (document.is_discarded()) return make_error("nvdisasm -json: output is not valid JSON");
    if (!document.is_array() || document.size() < 2 || !document[0].is_object() || !document[1].is_array())
        return make_error("nvdisasm -json: expected a two-element array [metadata, functions]");

    SassProgram program;
    const nlohmann::json& meta = document[0];
    if (auto sm = meta.find("SM"); sm != meta.end() && sm->contains("version")) {
        program.sm_major = (*sm)["version"].value("major", 0);
        program.sm_minor = (*sm)["version"].value("minor", 0);
    }
    program.producer = string_or_empty(meta, "Producer");
    if (auto tk = meta.find(".note.nv.tkinfo"); tk != meta.end() && tk->is_object())
        program.tool_options = string_or_empty(*tk, "tki_toolOptions");

    for (const nlohmann::json& item : document[1]) {
        if (!item.is_object()) continue;
        SassFunction function;
        function.name = string_or_empty(item, "function-name");
        function.start = item.value("start", std::uint64_t{0});
        function.length = item.value("length", std::uint64_t{0});
        auto instructions = item.find("sass-instructions");
        if (instructions != item.end() && instructions->is_array()) {
            std::uint64_t offset = function.start;
            for (const nlohmann::json& entry : *instructions) {
                function.instructions.push_back(read_instruction(entry, offset));
                offset += kInstructionBytes;
            }
        }
        program.functions.push_back(std::move(function));
    }
    return program;
}

}  // namespace kp::profile
