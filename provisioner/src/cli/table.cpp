#include "provisioner/cli/table.hpp"

#include <algorithm>

namespace provisioner::cli {
namespace {

constexpr std::string_view kEllipsis = "\u2026";

bool isContinuationByte(unsigned char c) {
  return (c & 0xC0) == 0x80;
}

void pad(std::ostream& out, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) out << ' ';
}

std::string displayCell(const std::string& cell, std::size_t maxWidth) {
  if (cell.empty()) return kEmptyCell;
  return truncateToWidth(sanitize(cell), maxWidth);
}

}  // namespace

std::size_t displayWidth(std::string_view text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return !isContinuationByte(static_cast<unsigned char>(c));
  }));
}

std::string sanitize(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7F) c = ' ';
  }
  return out;
}

std::string truncateToWidth(std::string_view text, std::size_t width) {
  if (displayWidth(text) <= width) return std::string(text);
  if (width == 0) return "";
  // Keep width-1 code points, then the ellipsis takes the last column.
  std::size_t kept = 0;
  std::size_t end = 0;
  for (; end < text.size(); ++end) {
    if (!isContinuationByte(static_cast<unsigned char>(text[end]))) {
      if (kept == width - 1) break;
      ++kept;
    }
  }
  return std::string(text.substr(0, end)) + std::string(kEllipsis);
}

Table::Table(std::vector<std::string> headers, std::size_t maxCellWidth)
    : headers_(std::move(headers)), maxCellWidth_(maxCellWidth) {}

void Table::addRow(std::vector<std::string> cells) {
  cells.resize(headers_.size());
  for (auto& cell : cells) cell = displayCell(cell, maxCellWidth_);
  rows_.push_back(std::move(cells));
}

std::vector<std::size_t> Table::columnWidths() const {
  std::vector<std::size_t> widths;
  for (const auto& header : headers_) widths.push_back(displayWidth(header));
  for (const auto& row : rows_) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      widths[i] = std::max(widths[i], displayWidth(row[i]));
    }
  }
  return widths;
}

void Table::renderLine(std::ostream& out, const std::vector<std::string>& cells,
                       const std::vector<std::size_t>& widths) const {
  for (std::size_t i = 0; i < cells.size(); ++i) {
    out << cells[i];
    if (i + 1 < cells.size()) pad(out, widths[i] - displayWidth(cells[i]) + 2);
  }
  out << '\n';
}

void Table::render(std::ostream& out) const {
  auto widths = columnWidths();
  renderLine(out, headers_, widths);
  for (const auto& row : rows_) renderLine(out, row, widths);
}

void renderFields(std::ostream& out, const Fields& fields) {
  std::size_t labelWidth = 0;
  for (const auto& field : fields) labelWidth = std::max(labelWidth, displayWidth(field.first));
  for (const auto& [label, value] : fields) {
    out << label << ':';
    pad(out, labelWidth - displayWidth(label) + 2);
    out << (value.empty() ? std::string(kEmptyCell) : sanitize(value)) << '\n';
  }
}

}  // namespace provisioner::cli
