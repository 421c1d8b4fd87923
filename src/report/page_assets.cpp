#include "report/page_assets.h"

namespace kp::report {

std::string_view page_asset(std::string_view name) {
    for (int i = 0; i < kPageAssetCount; ++i)
        if (name == kPageAssets[i].name) return kPageAssets[i].text;
    return {};
}

}  // namespace kp::report
