// The identifier columns that both ncu CSV layouts share (ID, Kernel Name, Block Size, ...).
#pragma once

#include <string_view>

#include "profile/csv_reader.h"
#include "profile/kernel_metrics.h"

namespace kp::profile {

struct IdentityColumns {
    int id = -1, name = -1, block = -1, grid = -1, device = -1, cc = -1;
};

IdentityColumns find_identity_columns(const CsvRecord& header);

// A KernelMetrics with only the identity filled in; id stays -1 when the ID is not a number.
KernelMetrics read_identity(const CsvRecord& record, const IdentityColumns& columns);

// True for the columns that identify a launch rather than measure it.
bool is_identity_column(std::string_view name);

}  // namespace kp::profile
