#include "provisioner/http/csv.hpp"

#include <cctype>
#include <set>

#include "text.hpp"

namespace provisioner::http {
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

common::Error csvError(std::size_t line, std::string message) {
  return common::invalidArgument("invalid_csv", std::move(message), "line " + std::to_string(line));
}

// Reads one record at a time, tracking physical line numbers across quoted line breaks.
class CsvReader {
 public:
  explicit CsvReader(std::string_view text) : text_(text) {}

  bool atEnd() const { return pos_ >= text_.size(); }
  std::size_t line() const { return line_; }

  // Reads the record starting at the current position; `blank` when it was an empty line.
  common::Result<std::vector<std::string>> next(bool& blank) {
    std::vector<std::string> fields;
    const std::size_t start_line = line_;
    std::string field;
    bool quoted = false;
    while (true) {
      if (atEnd() || isLineEnd()) {
        blank = fields.empty() && !quoted && text::trim(field).empty();
        fields.push_back(std::move(field));
        skipLineEnd();
        return fields;
      }
      const char c = text_[pos_];
      if (c == '"' && field.empty() && !quoted) {
        PROV_TRY(readQuoted(field, start_line));
        quoted = true;
      } else if (c == ',') {
        fields.push_back(std::move(field));
        field.clear();
        quoted = false;
        ++pos_;
      } else if (quoted) {
        return csvError(line_, "unexpected text after a closing quote");
      } else {
        field.push_back(c);  // a bare quote inside an unquoted field is kept as data
        ++pos_;
      }
    }
  }

 private:
  bool isLineEnd() const { return text_[pos_] == '\n' || text_[pos_] == '\r'; }

  void skipLineEnd() {
    if (atEnd()) return;
    if (text_[pos_] == '\r' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n') ++pos_;
    ++pos_;
    ++line_;
  }

  // Consumes "..." with "" as an escaped quote; line breaks inside count as source lines.
  common::Result<void> readQuoted(std::string& field, std::size_t start_line) {
    ++pos_;
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '"') {
        if (pos_ + 1 < text_.size() && text_[pos_ + 1] == '"') {
          field.push_back('"');
          pos_ += 2;
          continue;
        }
        ++pos_;
        return common::success();
      }
      if (c == '\n' || (c == '\r' && (pos_ + 1 >= text_.size() || text_[pos_ + 1] != '\n'))) {
        ++line_;
      }
      field.push_back(c);
      ++pos_;
    }
    return csvError(start_line, "a quoted field is not closed");
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t line_ = 1;
};

common::Result<void> checkHeader(const std::vector<std::string>& header, std::size_t line) {
  std::set<std::string> seen;
  for (const auto& name : header) {
    const std::string key = text::toLower(text::trim(name));
    if (key.empty()) return csvError(line, "the header has an empty column name");
    if (!seen.insert(key).second) return csvError(line, "the header repeats column '" + key + "'");
  }
  return common::success();
}

}  // namespace

std::optional<std::size_t> CsvTable::columnIndex(std::string_view name) const {
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (text::equalsIgnoreCase(text::trim(header[i]), text::trim(name))) return i;
  }
  return std::nullopt;
}

common::Result<CsvTable> parseCsv(std::string_view text) {
  if (text.starts_with(kBom)) text.remove_prefix(kBom.size());
  CsvReader reader(text);
  CsvTable table;
  bool have_header = false;
  while (!reader.atEnd()) {
    const std::size_t line = reader.line();
    bool blank = false;
    auto fields = reader.next(blank);
    if (!fields) return std::move(fields).error();
    if (blank) continue;
    if (!have_header) {
      PROV_TRY(checkHeader(*fields, line));
      table.header = std::move(*fields);
      table.header_line = line;
      have_header = true;
      continue;
    }
    if (fields->size() != table.header.size()) {
      return csvError(line, "expected " + std::to_string(table.header.size()) +
                                " fields as in the header, found " +
                                std::to_string(fields->size()));
    }
    table.rows.push_back(CsvRow{line, std::move(*fields)});
  }
  if (!have_header) return csvError(1, "the CSV is empty; a header row is required");
  return table;
}

std::string csvEscape(std::string_view field) {
  const bool needs_quotes = field.find_first_of(",\"\r\n") != std::string_view::npos ||
                            (!field.empty() && (field.front() == ' ' || field.back() == ' '));
  if (!needs_quotes) return std::string(field);
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

namespace {

bool looksLikeNumber(std::string_view s) {
  if (s.size() < 2 || (s.front() != '-' && s.front() != '+')) return false;
  for (char c : s.substr(1)) {
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.') return false;
  }
  return true;
}

bool looksLikeFormula(std::string_view s) {
  if (s.empty()) return false;
  const char c = s.front();
  if (c == '=' || c == '@' || c == '\t' || c == '\r') return true;
  return (c == '+' || c == '-') && !looksLikeNumber(s);
}

}  // namespace

void CsvWriter::addRow(const std::vector<std::string>& fields) {
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) text_.push_back(',');
    text_ += looksLikeFormula(fields[i]) ? csvEscape("'" + fields[i]) : csvEscape(fields[i]);
  }
  text_ += "\r\n";
}

}  // namespace provisioner::http
