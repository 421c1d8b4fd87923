#include "analysis/hardware_claims.h"

#include <algorithm>
#include <cctype>
#include <regex>

namespace kp::analysis {

namespace {

struct FeatureWords {
    const char* feature;
    const char* pattern;  // ECMAScript, matched case-insensitively
};

// Words that claim each feature. CuTe's atom names count (SM90_64x128x16_F32BF16BF16_SS is a
// WGMMA, SM90_TMA_LOAD a TMA copy, SM80_16x8x16_F32BF16BF16F32_TN an mma.sync).
const std::vector<FeatureWords>& feature_words() {
    static const std::vector<FeatureWords> words{
        {"WGMMA", R"(\bwgmma\b|\bwarp-?group(-level)?\s+mma\b|\bgmma\b|\bsm90_64x\d+x\d+)"},
        {"TMA", R"(\btma\b|cp\.async\.bulk|cutensormapencode|\bsm90_tma_|tensor\s+memory\s+accelerator)"},
        {"tensor cores", R"(tensor[\s-]?cores?\b|\bmma\.sync\b|\bwmma\b|\bmma\b|\bhmma\b|\bsm80_16x8x\d+)"},
    };
    return words;
}

// "no", "not", "without", "instead of", "avoid" within the few words before a mention.
bool negated(std::string_view text, size_t at) {
    size_t from = at > 24 ? at - 24 : 0;
    std::string before(text.substr(from, at - from));
    for (char& c : before) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    static const std::regex negation(R"((\bno|\bnot|\bwithout|\binstead of|\bavoids?|\bnon)[\s-]+(\w+[\s-]+)?$)");
    return std::regex_search(before, negation);
}

}  // namespace

std::vector<HardwareClaim> find_hardware_claims(std::string_view text, const std::string& where, bool number_lines) {
    std::vector<HardwareClaim> claims;
    const std::string owned(text);
    for (const auto& f : feature_words()) {
        const std::regex pattern(f.pattern, std::regex::icase | std::regex::ECMAScript);
        for (auto it = std::sregex_iterator(owned.begin(), owned.end(), pattern); it != std::sregex_iterator(); ++it) {
            const size_t at = static_cast<size_t>(it->position());
            if (negated(owned, at)) continue;
            std::string place = where;
            if (number_lines) place += ":" + std::to_string(1 + std::count(owned.begin(), owned.begin() + static_cast<long>(at), '\n'));
            claims.push_back({f.feature, place, it->str()});
            break;
        }
    }
    return claims;
}

const std::vector<std::string>& opcodes_showing(const std::string& feature) {
    static const std::vector<std::string> wgmma{"HGMMA", "QGMMA", "IGMMA", "BGMMA"};
    static const std::vector<std::string> tma{"UTMALDG", "UTMASTG", "UTMAPF", "UTMAREDG", "UBLKCP"};
    static const std::vector<std::string> tensor{"HMMA", "IMMA", "DMMA", "BMMA", "HGMMA", "QGMMA", "IGMMA", "BGMMA"};
    static const std::vector<std::string> none;
    if (feature == "WGMMA") return wgmma;
    if (feature == "TMA") return tma;
    if (feature == "tensor cores") return tensor;
    return none;
}

OpcodeCounts count_opcodes(const profile::SassFunction& function) {
    OpcodeCounts counts;
    for (const auto& instruction : function.instructions) ++counts[std::string(instruction.base_opcode())];
    return counts;
}

OpcodeCounts count_opcodes(const std::vector<const profile::SassFunction*>& functions) {
    OpcodeCounts counts;
    for (const auto* f : functions)
        for (const auto& [opcode, n] : count_opcodes(*f)) counts[opcode] += n;
    return counts;
}

std::vector<HardwareClaim> unbacked_claims(const std::vector<HardwareClaim>& claims, const OpcodeCounts& counts) {
    std::vector<HardwareClaim> unbacked;
    for (const auto& claim : claims) {
        bool shown = false;
        for (const auto& opcode : opcodes_showing(claim.feature)) {
            auto it = counts.find(opcode);
            shown = shown || (it != counts.end() && it->second > 0);
        }
        if (!shown) unbacked.push_back(claim);
    }
    return unbacked;
}

std::string describe_unbacked(const HardwareClaim& claim) {
    std::string opcodes;
    for (const auto& o : opcodes_showing(claim.feature)) opcodes += (opcodes.empty() ? "" : "/") + o;
    return "claims " + claim.feature + " (" + claim.where + ": \"" + claim.words + "\") but the SASS has no " + opcodes;
}

}  // namespace kp::analysis
