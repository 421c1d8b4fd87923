// The wide ncu CSV layout of `--page raw`: one column per metric, a units row, one row per kernel.
#include "profile/csv_reader.h"
#include "profile/ncu_csv.h"
#include "profile/ncu_identity_columns.h"

namespace kp::profile {

Result<std::vector<KernelMetrics>> parse_ncu_wide_csv(std::string_view text) {
    std::vector<CsvRecord> records = read_ncu_csv_records(text);
    size_t header_at = records.size();
    for (size_t i = 0; i < records.size(); ++i) {
        if (column_index(records[i], "Kernel Name") >= 0 && column_index(records[i], "ID") >= 0 &&
            column_index(records[i], "Metric Name") < 0) {
            header_at = i;
            break;
        }
    }
    if (header_at == records.size()) return make_error("ncu CSV: no wide-format header (\"ID\" ... \"Kernel Name\") found");
    const CsvRecord& header = records[header_at];
    IdentityColumns ids = find_identity_columns(header);

    CsvRecord units;
    std::vector<KernelMetrics> kernels;
    for (size_t r = header_at + 1; r < records.size(); ++r) {
        const CsvRecord& record = records[r];
        if (record == header) continue;  // repeated header from a second process
        // The units row has an empty ID; kernel rows have a numeric one.
        if (field_or_empty(record, ids.id).empty()) {
            units = record;
            continue;
        }
        KernelMetrics kernel = read_identity(record, ids);
        if (kernel.id < 0 || kernel.name.empty()) continue;
        for (size_t c = 0; c < header.size() && c < record.size(); ++c) {
            if (is_identity_column(header[c]) || record[c].empty()) continue;
            kernel.metrics.emplace(header[c], make_metric_value(record[c], field_or_empty(units, static_cast<int>(c))));
        }
        kernels.push_back(std::move(kernel));
    }
    return kernels;
}

NcuCsvLayout detect_ncu_csv_layout(std::string_view text) {
    for (const CsvRecord& record : read_ncu_csv_records(text)) {
        if (column_index(record, "Kernel Name") < 0 || column_index(record, "ID") < 0) continue;
        return column_index(record, "Metric Name") >= 0 ? NcuCsvLayout::long_format : NcuCsvLayout::wide_format;
    }
    return NcuCsvLayout::unknown;
}

Result<std::vector<KernelMetrics>> parse_ncu_csv(std::string_view text) {
    switch (detect_ncu_csv_layout(text)) {
        case NcuCsvLayout::long_format: return parse_ncu_long_csv(text);
        case NcuCsvLayout::wide_format: return parse_ncu_wide_csv(text);
        case NcuCsvLayout::unknown: break;
    }
    return make_error("ncu CSV: no header row with \"ID\" and \"Kernel Name\" (is this ncu --csv output?)");
}

}  // namespace kp::profile
