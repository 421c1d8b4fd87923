#include "profile/ncu_source_page.h"

#include <cstdlib>

#include "profile/csv_reader.h"

namespace kp::profile {
namespace {

std::optional<std::uint64_t> parse_address(const std::string& text) {
    if (text.size() < 3 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X')) return std::nullopt;
    char* end = nullptr;
    std::uint64_t value = std::strtoull(text.c_str() + 2, &end, 16);
    if (end != text.c_str() + text.size()) return std::nullopt;
    return value;
}

std::string trim_leading(const std::string& text) {
    size_t first = text.find_first_not_of(" \t");
    return first == std::string::npos ? std::string() : text.substr(first);
}

// Column roles of one header. The cuda,sass variant has two "Source" columns: the one right after
// "Line No" is CUDA text, the one right after "Address" is SASS.
struct SourceColumns {
    int address = -1, sass = -1, line = -1, cuda = -1;
    std::vector<std::pair<int, std::string>> metrics;
};

SourceColumns map_columns(const CsvRecord& header) {
    SourceColumns c;
    for (size_t i = 0; i < header.size(); ++i) {
        const std::string& name = header[i];
        int index = static_cast<int>(i);
        if (name == "Address") c.address = index;
        else if (name == "Line No" || name == "#") c.line = index;
        else if (name == "Source") {
            if (c.address >= 0 && index == c.address + 1) c.sass = index;
            else if (c.line >= 0 && index == c.line + 1) c.cuda = index;
            else if (c.sass < 0 && c.address < 0) c.cuda = index;  // Source before any Address
            else c.sass = index;
        } else if (!name.empty()) {
            c.metrics.emplace_back(index, name);
        }
    }
    // Layout "Address","Source" (sass only): the Source column is SASS.
    if (c.sass < 0 && c.cuda >= 0 && c.line < 0) std::swap(c.sass, c.cuda);
    return c;
}

}  // namespace

std::optional<double> SourceRow::number(const std::string& column) const {
    auto it = metrics.find(column);
    return it == metrics.end() ? std::nullopt : it->second.number();
}

double SourcePage::column_sum(const std::string& column) const {
    double total = 0;
    for (const SourceRow& row : rows)
        if (auto v = row.number(column)) total += *v;
    return total;
}

bool SourcePage::has_column(const std::string& column) const {
    for (const SourceRow& row : rows)
        if (row.metrics.count(column)) return true;
    return false;
}

Result<std::vector<SourcePage>> parse_ncu_source_csv(std::string_view text) {
    std::vector<SourcePage> pages;
    SourceColumns columns;
    bool have_header = false;
    std::optional<int> current_line;
    std::string current_cuda;
    std::uint64_t base_address = 0;
    bool have_base = false;  // the first row's address: function-relative offsets start there

    for (const CsvRecord& record : read_ncu_csv_records(text)) {
        if (record.empty()) continue;
        const std::string& first = record[0];
        if (first == "Kernel Name") {
            pages.emplace_back();
            pages.back().kernel_name = field_or_empty(record, 1);
            have_header = false;
            current_line.reset();
            have_base = false;
            continue;
        }
        if (pages.empty()) continue;
        SourcePage& page = pages.back();
        if (first == "File Path") { page.file_path = field_or_empty(record, 1); continue; }
        if (first == "Function Name") { page.function_name = field_or_empty(record, 1); continue; }
        if (column_index(record, "Address") >= 0 && column_index(record, "Source") >= 0) {
            columns = map_columns(record);
            have_header = true;
            continue;
        }
        if (!have_header) continue;

        if (columns.line >= 0) {
            if (auto line = parse_ncu_number(field_or_empty(record, columns.line))) {
                current_line = static_cast<int>(*line);
                if (columns.cuda >= 0) current_cuda = field_or_empty(record, columns.cuda);
            }
        }
        auto address = parse_address(field_or_empty(record, columns.address));
        if (!address) continue;  // a CUDA-only row: it set the current line above
        if (!have_base) {
            base_address = *address;
            have_base = true;
        }

        SourceRow row;
        row.address = *address;
        row.offset = *address - base_address;
        row.sass = trim_leading(field_or_empty(record, columns.sass));
        row.line = current_line;
        row.cuda_source = current_cuda;
        for (const auto& [index, name] : columns.metrics) {
            const std::string& raw = field_or_empty(record, index);
            if (!raw.empty()) row.metrics.emplace(name, make_metric_value(raw, ""));
        }
        page.rows.push_back(std::move(row));
    }
    if (pages.empty()) return make_error("ncu source page: no \"Kernel Name\" block found (expected --page source --csv)");
    return pages;
}

}  // namespace kp::profile
