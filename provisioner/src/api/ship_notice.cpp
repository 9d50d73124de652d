#include "provisioner/api/ship_notice.hpp"

#include <charconv>
#include <optional>

#include "common/mac_address.hpp"
#include "input.hpp"
#include "provisioner/http/csv.hpp"

namespace provisioner::api {
namespace {

using common::Result;

constexpr std::string_view kRequiredColumns[] = {"serial",           "model", "bmc_mac",
                                                 "factory_password", "rack",  "u"};

common::Error lineError(int line, const std::string& message) {
  return common::invalidArgument("invalid_csv", "line " + std::to_string(line) + ": " + message,
                                 "line " + std::to_string(line));
}

// Fails naming the first required column the header lacks.
Result<void> checkColumns(const http::CsvTable& table) {
  for (auto col : kRequiredColumns) {
    if (!table.columnIndex(col)) {
      return common::fail(lineError(static_cast<int>(table.header_line),
                                    "missing required column '" + std::string(col) + "'"));
    }
  }
  return common::success();
}

Result<std::optional<int>> intCell(const std::string& text, std::string_view column, int line,
                                   int min, int max) {
  if (text.empty()) return std::optional<int>{};
  int v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || v < min || v > max) {
    return common::fail(lineError(line, std::string(column) + " must be a whole number from " +
                                            std::to_string(min) + " to " + std::to_string(max)));
  }
  return std::optional<int>(v);
}

class RowReader {
 public:
  RowReader(const http::CsvTable& table, const http::CsvRow& row) : table_(table), row_(row) {}

  std::string cell(std::string_view column) const {
    auto i = table_.columnIndex(column);
    if (!i || *i >= row_.fields.size()) return {};
    return trimmed(row_.fields[*i]);
  }
  Result<std::string> required(std::string_view column) const {
    std::string v = cell(column);
    if (v.empty()) {
      return common::fail(lineError(line(), std::string(column) + " is empty"));
    }
    return v;
  }
  int line() const { return static_cast<int>(row_.line); }

 private:
  const http::CsvTable& table_;
  const http::CsvRow& row_;
};

Result<inventory::ExpectedAssetSpec> readUnit(const RowReader& row) {
  inventory::ExpectedAssetSpec unit;
  unit.source_line = row.line();
  PROV_ASSIGN(unit.chassis_serial, row.required("serial"));
  PROV_ASSIGN(unit.model, row.required("model"));
  PROV_ASSIGN(auto mac, row.required("bmc_mac"));
  auto normal = common::normalizeMac(mac);
  if (!normal) return common::fail(lineError(row.line(), "bmc_mac '" + mac + "' is not a MAC"));
  unit.bmc_mac = *normal;
  PROV_ASSIGN(unit.factory_password, row.required("factory_password"));
  unit.factory_username = row.cell("factory_username");
  PROV_ASSIGN(unit.rack, row.required("rack"));
  PROV_ASSIGN(auto u_text, row.required("u"));
  PROV_ASSIGN(unit.u_position, intCell(u_text, "u", row.line(), 1, 60));
  PROV_ASSIGN(unit.gpu_count, intCell(row.cell("gpu_count"), "gpu_count", row.line(), 0, 64));
  PROV_ASSIGN(unit.line_no, intCell(row.cell("line_no"), "line_no", row.line(), 1, 100000));
  return unit;
}

}  // namespace

Result<std::vector<inventory::ExpectedAssetSpec>> parseShipNotice(std::string_view csv) {
  PROV_ASSIGN(auto table, http::parseCsv(csv));
  PROV_TRY(checkColumns(table));
  if (table.rows.empty()) {
    return common::fail(
        common::invalidArgument("invalid_csv", "the ship notice lists no units", "line 2"));
  }
  std::vector<inventory::ExpectedAssetSpec> units;
  units.reserve(table.rows.size());
  for (const auto& row : table.rows) {
    PROV_ASSIGN(auto unit, readUnit(RowReader(table, row)));
    units.push_back(std::move(unit));
  }
  return units;
}

}  // namespace provisioner::api
