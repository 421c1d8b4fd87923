#include "search/run_recipe.h"

namespace kp::search {

namespace {

constexpr int kRecipeVersion = 1;

}  // namespace

nlohmann::json recipe_to_json(const RunRecipe& r) {
    return {
        {"version", kRecipeVersion},
        {"task", {{"given", r.task_given}, {"path", r.task_path}}},
        {"baseline", {{"given", r.baseline_given}, {"path", r.baseline_path}}},
        {"proposers", r.proposers},
        {"llm",
         {{"spec", r.llm.spec},
          {"config_file", r.llm.config_file},
          {"record", r.llm.record},
          {"replay", r.llm.replay},
          {"settings", r.llm.settings}}},
        {"evaluation",
         {{"trials", r.evaluation.trials},
          {"max_time", r.evaluation.max_time},
          {"min_time", r.evaluation.min_time},
          {"require_sandbox", r.evaluation.require_sandbox},
          {"compile_baseline", r.evaluation.compile_baseline},
          {"energy", r.evaluation.energy},
          {"energy_windows", r.evaluation.energy_windows}}},
        {"profile", {{"enabled", r.profile.enabled}, {"budget_seconds", r.profile.budget_seconds}, {"tree", r.profile.tree},
                     {"tree_costs", r.profile.tree_costs}, {"tree_budget_passes", r.profile.tree_budget_passes}}},
        {"out_dir", r.out_dir},
        {"store", r.store},
        {"working_directory", r.working_directory},
    };
}

Result<RunRecipe> recipe_from_json(const nlohmann::json& object) {
    if (!object.is_object()) return make_error("run recipe is not a JSON object");
    RunRecipe r;
    try {
        if (object.value("version", kRecipeVersion) > kRecipeVersion)
            return make_error("run recipe version " + object["version"].dump() + " is newer than this kernelpro reads");
        const auto none = nlohmann::json::object();
        const auto& task = object.value("task", none);
        r.task_given = task.value("given", "");
        r.task_path = task.value("path", "");
        const auto& baseline = object.value("baseline", none);
        r.baseline_given = baseline.value("given", "");
        r.baseline_path = baseline.value("path", "");
        r.proposers = object.value("proposers", r.proposers);
        const auto& llm = object.value("llm", none);
        r.llm.spec = llm.value("spec", "");
        r.llm.config_file = llm.value("config_file", "");
        r.llm.record = llm.value("record", "");
        r.llm.replay = llm.value("replay", "");
        r.llm.settings = llm.value("settings", nlohmann::json());
        const auto& evaluation = object.value("evaluation", none);
        r.evaluation.trials = evaluation.value("trials", r.evaluation.trials);
        r.evaluation.max_time = evaluation.value("max_time", r.evaluation.max_time);
        r.evaluation.min_time = evaluation.value("min_time", r.evaluation.min_time);
        r.evaluation.require_sandbox = evaluation.value("require_sandbox", r.evaluation.require_sandbox);
        r.evaluation.compile_baseline = evaluation.value("compile_baseline", r.evaluation.compile_baseline);
        r.evaluation.energy = evaluation.value("energy", r.evaluation.energy);
        r.evaluation.energy_windows = evaluation.value("energy_windows", r.evaluation.energy_windows);
        const auto& profile = object.value("profile", none);
        r.profile.enabled = profile.value("enabled", r.profile.enabled);
        r.profile.budget_seconds = profile.value("budget_seconds", r.profile.budget_seconds);
        r.profile.tree = profile.value("tree", r.profile.tree);
        r.profile.tree_costs = profile.value("tree_costs", r.profile.tree_costs);
        r.profile.tree_budget_passes = profile.value("tree_budget_passes", r.profile.tree_budget_passes);
        r.out_dir = object.value("out_dir", "");
        r.store = object.value("store", "");
        r.working_directory = object.value("working_directory", "");
    } catch (const nlohmann::json::exception& error) {
        return make_error(std::string("malformed run recipe: ") + error.what());
    }
    return r;
}

}  // namespace kp::search
