// A CSV reader for ncu's --csv output. ncu quotes every field; the profiled program's own stdout and
// ncu's "==PROF==" log lines can be interleaved with the CSV, so a record may only begin at the
// start of a line that opens with a quote. Quoted fields may contain commas, doubled quotes and
// newlines.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kp::profile {

using CsvRecord = std::vector<std::string>;

// Every record of `text`; lines that do not start with '"' (outside a quoted field) are skipped as
// noise.
std::vector<CsvRecord> read_ncu_csv_records(std::string_view text);

// Index of `name` in `header`, or -1.
int column_index(const CsvRecord& header, std::string_view name);

// The field at `index`, or "" when the record is shorter (ncu omits trailing empty fields).
const std::string& field_or_empty(const CsvRecord& record, int index);

}  // namespace kp::profile
