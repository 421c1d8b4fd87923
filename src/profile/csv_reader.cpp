#include "profile/csv_reader.h"

namespace kp::profile {

std::vector<CsvRecord> read_ncu_csv_records(std::string_view text) {
    std::vector<CsvRecord> records;
    size_t pos = 0;
    const size_t n = text.size();
    while (pos < n) {
        // Start of a line: a record only if it opens with a quote.
        if (text[pos] != '"') {
            size_t eol = text.find('\n', pos);
            pos = (eol == std::string_view::npos) ? n : eol + 1;
            continue;
        }
        CsvRecord record;
        std::string field;
        bool in_quotes = false;
        bool field_started = false;
        bool record_done = false;
        while (pos < n && !record_done) {
            char c = text[pos];
            if (in_quotes) {
                if (c == '"') {
                    if (pos + 1 < n && text[pos + 1] == '"') {
                        field.push_back('"');
                        pos += 2;
                        continue;
                    }
                    in_quotes = false;
                } else {
                    field.push_back(c);
                }
                ++pos;
                continue;
            }
            switch (c) {
                case '"':
                    in_quotes = true;
                    field_started = true;
                    break;
                case ',':
                    record.push_back(std::move(field));
                    field.clear();
                    field_started = false;
                    break;
                case '\r':
                    break;
                case '\n':
                    record_done = true;
                    break;
                default:
                    field.push_back(c);
                    field_started = true;
            }
            ++pos;
        }
        // A trailing comma ("...,"\n) leaves an empty last field; ncu writes one on some rows, and
        // dropping it keeps column counts honest.
        if (field_started || !field.empty()) record.push_back(std::move(field));
        records.push_back(std::move(record));
    }
    return records;
}

int column_index(const CsvRecord& header, std::string_view name) {
    for (size_t i = 0; i < header.size(); ++i)
        if (header[i] == name) return static_cast<int>(i);
    return -1;
}

const std::string& field_or_empty(const CsvRecord& record, int index) {
    static const std::string empty;
    if (index < 0 || static_cast<size_t>(index) >= record.size()) return empty;
    return record[static_cast<size_t>(index)];
}

}  // namespace kp::profile
