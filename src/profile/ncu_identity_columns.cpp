#include "profile/ncu_identity_columns.h"

#include <array>

namespace kp::profile {

IdentityColumns find_identity_columns(const CsvRecord& header) {
    IdentityColumns c;
    c.id = column_index(header, "ID");
    c.name = column_index(header, "Kernel Name");
    c.block = column_index(header, "Block Size");
    c.grid = column_index(header, "Grid Size");
    c.device = column_index(header, "Device");
    c.cc = column_index(header, "CC");
    return c;
}

KernelMetrics read_identity(const CsvRecord& record, const IdentityColumns& columns) {
    KernelMetrics kernel;
    if (auto id = parse_ncu_number(field_or_empty(record, columns.id))) kernel.id = static_cast<int>(*id);
    kernel.name = field_or_empty(record, columns.name);
    kernel.block = field_or_empty(record, columns.block);
    kernel.grid = field_or_empty(record, columns.grid);
    kernel.device = field_or_empty(record, columns.device);
    kernel.compute_capability = field_or_empty(record, columns.cc);
    return kernel;
}

bool is_identity_column(std::string_view name) {
    static constexpr std::array<std::string_view, 11> kNames = {
        "ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context",
        "Stream", "Block Size", "Grid Size", "Device", "CC"};
    for (std::string_view known : kNames)
        if (known == name) return true;
    return false;
}

}  // namespace kp::profile
