// RFC 4180 CSV: a strict reader for imports (errors name the source line) and a writer for exports.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace provisioner::http {

struct CsvRow {
  std::size_t line = 0;  // 1-based line of the source where the record starts
  std::vector<std::string> fields;
};

struct CsvTable {
  std::vector<std::string> header;
  std::size_t header_line = 0;
  std::vector<CsvRow> rows;

  // Index of a header column, matched case-insensitively and ignoring surrounding spaces.
  std::optional<std::size_t> columnIndex(std::string_view name) const;
};

// Parses `text`: quoted fields (commas, line breaks and "" inside), CRLF or LF line ends, a
// leading UTF-8 BOM, blank lines skipped. The first record is the header. Errors are
// "invalid_csv" with field "line N": an unterminated quote, text after a closing quote, a row
// whose field count differs from the header's, a duplicate or empty header, no header at all.
common::Result<CsvTable> parseCsv(std::string_view text);

// A field as RFC 4180 writes it: quoted (with "" for ") only when it holds , " CR or LF or
// starts or ends with a space.
std::string csvEscape(std::string_view field);

// Builds an export: CRLF line ends. Cells that a spreadsheet would run as a formula (starting
// with = + - @ tab or CR, other than plain numbers) are prefixed with ' so opening an export
// never executes data someone typed into a field.
class CsvWriter {
 public:
  void addRow(const std::vector<std::string>& fields);
  const std::string& text() const { return text_; }
  std::string release() { return std::move(text_); }

 private:
  std::string text_;
};

}  // namespace provisioner::http
