#include "profile/sass_collector.h"

#include <algorithm>
#include <future>
#include <system_error>

#include <nlohmann/json.hpp>

#include "common/files.h"
#include "common/process.h"
#include "profile/kernel_names.h"
#include "profile/nvdisasm_json.h"
#include "profile/nvdisasm_line_info.h"
#include "profile/tool_locator.h"
#include "common/utf8.h"

namespace kp::profile {
namespace {

namespace fs = std::filesystem;

// Raw outputs of the tools; what the cache stores.
struct RawDisassembly {
    std::vector<std::pair<std::string, std::pair<std::string, std::string>>> cubins;  // name -> (json, lineinfo)
    std::string resource_usage;
};

Result<std::string> run_tool(const std::vector<std::string>& argv, std::chrono::seconds timeout,
                             const std::optional<std::string>& cwd = std::nullopt) {
    ProcessOptions options;
    options.timeout = timeout;
    options.working_directory = cwd;
    auto result = run_process(argv, options);
    if (!result) return result.error();
    if (!result->succeeded()) return make_error(result->describe_failure() + ": " + result->stderr_text);
    return result->stdout_text;
}

Result<SassCollection> parse_raw(const RawDisassembly& raw) {
    SassCollection collection;
    for (const auto& [name, texts] : raw.cubins) {
        auto program = parse_nvdisasm_json(texts.first);
        if (!program) return make_error(name + ": " + program.error().message);
        if (!texts.second.empty()) {
            if (auto lines = parse_nvdisasm_line_info(texts.second)) attach_line_info(*program, *lines);
        }
        collection.cubins.push_back(CubinDisassembly{name, std::move(*program)});
    }
    if (!raw.resource_usage.empty()) {
        if (auto usage = parse_cuobjdump_resource_usage(raw.resource_usage)) collection.resources = std::move(*usage);
    }
    return collection;
}

std::string serialize(const RawDisassembly& raw) {
    nlohmann::json doc;
    doc["resource_usage"] = raw.resource_usage;
    for (const auto& [name, texts] : raw.cubins)
        doc["cubins"].push_back({{"name", name}, {"json", texts.first}, {"lineinfo", texts.second}});
    return dump_json(doc);
}

std::optional<RawDisassembly> deserialize(const std::string& text) {
    auto doc = nlohmann::json::parse(text, nullptr, false);
    if (!doc.is_object()) return std::nullopt;
    RawDisassembly raw;
    raw.resource_usage = doc.value("resource_usage", "");
    for (const auto& item : doc.value("cubins", nlohmann::json::array()))
        raw.cubins.push_back({item.value("name", ""), {item.value("json", ""), item.value("lineinfo", "")}});
    return raw;
}

}  // namespace

const SassFunction* SassCollection::find_function(std::string_view name) const {
    for (const CubinDisassembly& cubin : cubins)
        if (const SassFunction* f = cubin.program.find(name)) return f;
    for (const CubinDisassembly& cubin : cubins)
        for (const SassFunction& f : cubin.program.functions)
            if (same_kernel(f.name, name)) return &f;
    return nullptr;
}

const ResourceUsage* SassCollection::find_resources(std::string_view name) const {
    for (const ResourceUsage& usage : resources)
        if (usage.function == name || same_kernel(usage.function, name)) return &usage;
    return nullptr;
}

SassCollector::SassCollector(std::string nvdisasm_path, std::string cuobjdump_path, std::optional<CollectorCache> cache)
    : nvdisasm_path_(std::move(nvdisasm_path)), cuobjdump_path_(std::move(cuobjdump_path)), cache_(std::move(cache)) {}

Result<SassCollection> SassCollector::collect(const SassRequest& request) const {
    std::error_code ec;
    if (!fs::is_regular_file(request.binary, ec)) return make_error("SASS collector: no such file " + request.binary.string());
    const std::string key = request.cache_key.empty() ? "" : CollectorCache::make_key({name(), request.cache_key, "line-info-inline"});
    if (cache_ && !key.empty() && !request.refresh_cache) {
        if (auto hit = cache_->load(key)) {
            if (auto raw = deserialize(*hit)) {
                auto collection = parse_raw(*raw);
                if (collection) collection->from_cache = true;
                return collection;
            }
        }
    }

    std::string nvdisasm = nvdisasm_path_;
    if (nvdisasm.empty()) {
        auto found = require_nvidia_tool("nvdisasm");
        if (!found) return found.error();
        nvdisasm = *found;
    }
    const bool is_cubin = request.binary.extension() == ".cubin";
    std::string cuobjdump = cuobjdump_path_;
    if (cuobjdump.empty() && !is_cubin) {
        auto found = require_nvidia_tool("cuobjdump");
        if (!found) return found.error();
        cuobjdump = *found;
    }

    auto scratch_dir = ScratchDirectory::create("kp-sass-");
    if (!scratch_dir) return scratch_dir.error();
    const fs::path& scratch = scratch_dir->path();

    std::vector<fs::path> cubins;
    RawDisassembly raw;
    if (is_cubin) {
        cubins.push_back(fs::absolute(request.binary));
    } else {
        // -xelf writes the cubins into the working directory.
        auto extracted = run_tool({cuobjdump, "-xelf", "all", fs::absolute(request.binary).string()}, request.timeout, scratch.string());
        if (!extracted) return make_error("cuobjdump -xelf: " + extracted.error().message);
        for (const auto& entry : fs::directory_iterator(scratch, ec))
            if (entry.path().extension() == ".cubin") cubins.push_back(entry.path());
        std::sort(cubins.begin(), cubins.end());
        if (cubins.empty()) return make_error("cuobjdump found no cubin in " + request.binary.string() + " (built without device code for a real sm_XX?)");
    }
    // The tools run side by side: each nvdisasm run is mostly its own start-up (about 0.5 s on a
    // small cubin), and the profile waits for the SASS before a profiling tree's stage 2.
    auto usage = is_cubin ? std::future<Result<std::string>>()
                          : std::async(std::launch::async, [&] {
                                return run_tool({cuobjdump, "-res-usage", fs::absolute(request.binary).string()}, request.timeout);
                            });
    for (const fs::path& cubin : cubins) {
        // -gi: code inlined from a header (atomicAdd, __shfl_sync) is named by the candidate's line it
        // was inlined at (the stack's last "//## File" line), the line a finding asks to change.
        auto lines = std::async(std::launch::async, [&] { return run_tool({nvdisasm, "-c", "-gi", cubin.string()}, request.timeout); });
        auto json = run_tool({nvdisasm, "-json", cubin.string()}, request.timeout);
        auto line_info = lines.get();
        if (!json) return make_error("nvdisasm -json: " + json.error().message);
        // Line info is a bonus: keep the SASS even when -g fails.
        raw.cubins.push_back({cubin.filename().string(), {std::move(*json), line_info ? std::move(*line_info) : std::string()}});
    }
    if (usage.valid())
        if (auto text = usage.get()) raw.resource_usage = std::move(*text);
    if (cache_ && !key.empty()) (void)cache_->store(key, serialize(raw));
    return parse_raw(raw);
}

}  // namespace kp::profile
