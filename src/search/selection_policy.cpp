#include "search/selection_policy.h"

namespace kp::search {

PluginRegistry<SelectionPolicy>& selection_policies() {
    static PluginRegistry<SelectionPolicy> registry("selection policy");
    return registry;
}

}  // namespace kp::search
