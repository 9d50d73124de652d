#include <catch2/catch.hpp>

#include <sstream>

#include "common/error.hpp"
#include "provisioner/cli/errors.hpp"
#include "provisioner/cli/json_fields.hpp"
#include "provisioner/cli/table.hpp"

using namespace provisioner::cli;

namespace {
std::string render(const Table& table) {
  std::ostringstream out;
  table.render(out);
  return out.str();
}
}  // namespace

TEST_CASE("table: columns are aligned two spaces apart, no trailing blanks", "[unit][cli]") {
  Table table({"ID", "STATE", "SERIAL"});
  table.addRow({"1", "ready", "SN-1"});
  table.addRow({"1234", "quarantined", "SN-22"});
  CHECK(render(table) ==
        "ID    STATE        SERIAL\n"
        "1     ready        SN-1\n"
        "1234  quarantined  SN-22\n");
}

TEST_CASE("table: an empty table is its header; empty cells show a dash", "[unit][cli]") {
  Table empty({"PO NUMBER", "VENDOR"});
  CHECK(empty.rowCount() == 0);
  CHECK(render(empty) == "PO NUMBER  VENDOR\n");

  Table sparse({"A", "B", "C"});
  sparse.addRow({"x", ""});  // short row: missing cells are empty too
  CHECK(render(sparse) == "A  B  C\nx  -  -\n");
}

TEST_CASE("table: long cells are cut with an ellipsis", "[unit][cli]") {
  Table table({"MESSAGE", "N"}, 10);
  table.addRow({"abcdefghijklmnopqrstuvwxyz", "1"});
  CHECK(render(table) ==
        "MESSAGE     N\n"
        "abcdefghi\u2026  1\n");
}

TEST_CASE("table: UTF-8 cells align by code points and are cut on boundaries", "[unit][cli]") {
  CHECK(displayWidth("Müller") == 6);
  CHECK(truncateToWidth("ééééé", 3) == "éé\u2026");
  CHECK(truncateToWidth("short", 10) == "short");

  Table table({"NAME", "X"});
  table.addRow({"Müller", "1"});
  table.addRow({"ab", "2"});
  CHECK(render(table) ==
        "NAME    X\n"
        "Müller  1\n"
        "ab      2\n");
}

TEST_CASE("table: control characters from server data cannot break lines", "[unit][cli]") {
  Table table({"MESSAGE"});
  table.addRow({"line1\nline2\x1b[31m"});
  CHECK(render(table) == "MESSAGE\nline1 line2 [31m\n");
}

TEST_CASE("fields: labels padded, values aligned", "[unit][cli]") {
  std::ostringstream out;
  renderFields(out, {{"ID", "7"}, {"Chassis serial", "SN1"}, {"Rack", ""}});
  CHECK(out.str() ==
        "ID:              7\n"
        "Chassis serial:  SN1\n"
        "Rack:            -\n");
}

TEST_CASE("json fields: any shape reads as text without throwing", "[unit][cli]") {
  auto doc = nlohmann::json::parse(
      R"({"s": "x", "n": 8, "f": 0.5, "b": true, "z": null, "a": [1], "o": {"k": 1}})");
  CHECK(text(doc, "s") == "x");
  CHECK(text(doc, "n") == "8");
  CHECK(text(doc, "b") == "yes");
  CHECK(text(doc, "z").empty());
  CHECK(text(doc, "missing").empty());
  CHECK(text(nlohmann::json::array(), "s").empty());
  CHECK(arrayField(doc, "a").size() == 1);
  CHECK(arrayField(doc, "s").empty());
  CHECK(objectField(doc, "o").contains("k"));
  CHECK(objectField(doc, "a").empty());
}

TEST_CASE("errors: problem fields and request id in one line", "[unit][cli]") {
  common::Error problem{common::ErrorKind::kConflict, "duplicate_serial",
                        "chassis serial SN123 is already on PO-7", "line 7",
                        "HTTP 409, request 5f0c"};
  CHECK(formatError(problem) ==
        "error: chassis serial SN123 is already on PO-7 (duplicate_serial, field line 7) "
        "[HTTP 409, request 5f0c]");
  CHECK(exitCodeFor(problem) == kExitApiError);

  common::Error noField{common::ErrorKind::kNotFound, "node_not_found", "no node 9", "",
                        "HTTP 404"};
  CHECK(formatError(noField) == "error: no node 9 (node_not_found) [HTTP 404]");

  CHECK(formatError(localIoError("cannot read x.csv")) == "error: cannot read x.csv");
  CHECK(formatError(usageError("bad", "usage: u")) == "error: bad\nusage: u");
}
