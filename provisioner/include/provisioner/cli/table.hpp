// Plain-text rendering for people: aligned tables and "Label: value" blocks.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace provisioner::cli {

inline constexpr std::size_t kMaxCellWidth = 48;
inline constexpr const char* kEmptyCell = "-";

// Display width in terminal columns, counted as UTF-8 code points (wide CJK glyphs count as one:
// good enough for serials, models and messages).
std::size_t displayWidth(std::string_view text);

// Replaces control characters (newlines, tabs, escape sequences from server data) with spaces.
std::string sanitize(std::string_view text);

// Cuts `text` to at most `width` columns at a code point boundary, ending in "…" when cut.
std::string truncateToWidth(std::string_view text, std::size_t width);

class Table {
 public:
  explicit Table(std::vector<std::string> headers, std::size_t maxCellWidth = kMaxCellWidth);

  // Missing cells are shown as kEmptyCell; extra cells are dropped.
  void addRow(std::vector<std::string> cells);
  std::size_t rowCount() const { return rows_.size(); }

  // Header row then one line per row; columns two spaces apart, no trailing blanks.
  void render(std::ostream& out) const;

 private:
  std::vector<std::size_t> columnWidths() const;
  void renderLine(std::ostream& out, const std::vector<std::string>& cells,
                  const std::vector<std::size_t>& widths) const;

  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
  std::size_t maxCellWidth_;
};

using Fields = std::vector<std::pair<std::string, std::string>>;

// "Label:  value" lines with the values aligned; empty values are shown as kEmptyCell.
void renderFields(std::ostream& out, const Fields& fields);

}  // namespace provisioner::cli
