// The long ("one row per kernel and metric") ncu CSV layout, with optional rule rows.
#include <map>

#include "profile/csv_reader.h"
#include "profile/ncu_csv.h"
#include "profile/ncu_identity_columns.h"

namespace kp::profile {

Result<std::vector<KernelMetrics>> parse_ncu_long_csv(std::string_view text) {
    std::vector<CsvRecord> records = read_ncu_csv_records(text);
    std::vector<KernelMetrics> kernels;
    std::map<std::pair<int, std::string>, size_t> index_of;  // (id, name) -> kernels index
    bool saw_header = false;
    IdentityColumns ids;
    int section = -1, metric = -1, unit = -1, value = -1;
    int rule_name = -1, rule_type = -1, rule_description = -1, speedup_type = -1, speedup = -1;

    for (const CsvRecord& record : records) {
        // A header can appear more than once (one per profiled process); remap every time.
        if (column_index(record, "Metric Name") >= 0 && column_index(record, "Kernel Name") >= 0) {
            saw_header = true;
            ids = find_identity_columns(record);
            section = column_index(record, "Section Name");
            metric = column_index(record, "Metric Name");
            unit = column_index(record, "Metric Unit");
            value = column_index(record, "Metric Value");
            rule_name = column_index(record, "Rule Name");
            rule_type = column_index(record, "Rule Type");
            rule_description = column_index(record, "Rule Description");
            speedup_type = column_index(record, "Estimated Speedup Type");
            speedup = column_index(record, "Estimated Speedup");
            continue;
        }
        if (!saw_header) continue;
        KernelMetrics identity = read_identity(record, ids);
        if (identity.name.empty() || identity.id < 0) continue;  // a noise line that happened to start with '"'

        auto key = std::make_pair(identity.id, identity.name);
        auto found = index_of.find(key);
        if (found == index_of.end()) {
            found = index_of.emplace(key, kernels.size()).first;
            kernels.push_back(std::move(identity));
        }
        KernelMetrics& kernel = kernels[found->second];

        const std::string& metric_name = field_or_empty(record, metric);
        const std::string& rule = field_or_empty(record, rule_name);
        if (!metric_name.empty()) {
            kernel.metrics.emplace(metric_name, make_metric_value(field_or_empty(record, value), field_or_empty(record, unit)));
        } else if (!rule.empty()) {
            RuleResult result;
            result.section = field_or_empty(record, section);
            result.name = rule;
            result.type = field_or_empty(record, rule_type);
            result.description = field_or_empty(record, rule_description);
            result.speedup_type = field_or_empty(record, speedup_type);
            result.estimated_speedup_pct = parse_ncu_number(field_or_empty(record, speedup));
            kernel.rules.push_back(std::move(result));
        }
    }
    if (!saw_header) return make_error("ncu CSV: no long-format header (\"Kernel Name\" ... \"Metric Name\") found");
    return kernels;
}

}  // namespace kp::profile
