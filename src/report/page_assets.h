// The report page's own stylesheet and scripts (src/report/page/), built into the binary.
#pragma once

#include <string_view>

namespace kp::report {

struct PageAsset {
    const char* name;  // file name under src/report/page/
    const char* text;
};
extern const PageAsset kPageAssets[];
extern const int kPageAssetCount;

// The asset's text; empty for an unknown name.
std::string_view page_asset(std::string_view name);

}  // namespace kp::report
