#include "search/stored_run.h"

namespace kp::search {

Result<std::optional<RunRecipe>> recipe_of(const store::RunRecord& run) {
    if (run.recipe_json.empty()) return std::optional<RunRecipe>{};
    auto json = nlohmann::json::parse(run.recipe_json, nullptr, /*allow_exceptions=*/false);
    auto recipe = recipe_from_json(json);
    if (!recipe) return make_error("run " + std::to_string(run.id) + ": " + recipe.error().message);
    return std::optional<RunRecipe>(std::move(*recipe));
}

Result<std::vector<std::string>> served_llm_purposes(store::RunStore& store, std::int64_t run_id) {
    auto exchanges = store.load_llm_exchanges(run_id);
    if (!exchanges) return exchanges.error();
    std::vector<std::string> purposes;
    for (const auto& exchange : *exchanges) purposes.push_back(exchange.agent);
    return purposes;
}

}  // namespace kp::search
