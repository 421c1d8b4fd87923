// What resuming reads of a stored run besides its tree (which SearchDriver::resume rebuilds): the
// recipe the run was set up with, and the LLM replies its proposers already used.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "search/run_recipe.h"
#include "store/run_store.h"

namespace kp::search {

// nullopt for a run stored before runs kept their recipe (schema version 3).
Result<std::optional<RunRecipe>> recipe_of(const store::RunRecord& run);

// The purposes ("analyst", "coder", ...) of the LLM exchanges the run kept, oldest first: a
// resumed run's clients that answer from a fixed sequence skip that many (ChatClient::skip_served).
// Exchanges of a proposer call that never committed are not there, so they are asked again.
Result<std::vector<std::string>> served_llm_purposes(store::RunStore& store, std::int64_t run_id);

}  // namespace kp::search
