// Internal helper: reads every row of a prepared query into a vector through a reader function.
#pragma once

#include <vector>

#include "common/result.h"
#include "store/sqlite_database.h"

namespace kp::store {

template <typename Record, typename Reader>
Result<std::vector<Record>> collect_rows(SqliteStatement& query, Reader read) {
    std::vector<Record> records;
    while (true) {
        auto row = query.step();
        if (!row) return row.error();
        if (!*row) return records;
        records.push_back(read(query));
    }
}

}  // namespace kp::store
