#include <catch2/catch.hpp>

#include "provisioner/http/csv.hpp"

using provisioner::http::csvEscape;
using provisioner::http::CsvWriter;
using provisioner::http::parseCsv;

namespace {

void requireCsvError(std::string_view text, const std::string& field) {
  auto table = parseCsv(text);
  REQUIRE_FALSE(table.ok());
  CHECK(table.error().code == "invalid_csv");
  CHECK(table.error().kind == common::ErrorKind::kInvalidArgument);
  CHECK(table.error().field == field);
}

}  // namespace

TEST_CASE("parseCsv reads a header and rows with their line numbers", "[unit][http]") {
  auto table = parseCsv("serial,model,u\n1654,DGX H100,2\n1655,DGX H100,4\n");
  REQUIRE(table.ok());
  CHECK(table->header == std::vector<std::string>{"serial", "model", "u"});
  CHECK(table->header_line == 1);
  REQUIRE(table->rows.size() == 2);
  CHECK(table->rows[0].line == 2);
  CHECK(table->rows[1].line == 3);
  CHECK(table->rows[1].fields == std::vector<std::string>{"1655", "DGX H100", "4"});
}

TEST_CASE("parseCsv handles quotes, escaped quotes and line breaks inside quotes", "[unit][http]") {
  auto table = parseCsv("a,b\r\n\"x,1\",\"say \"\"hi\"\"\"\r\n\"two\nlines\",\"\"\r\nlast,row\r\n");
  REQUIRE(table.ok());
  REQUIRE(table->rows.size() == 3);
  CHECK(table->rows[0].fields == std::vector<std::string>{"x,1", "say \"hi\""});
  CHECK(table->rows[1].fields == std::vector<std::string>{"two\nlines", ""});
  CHECK(table->rows[1].line == 3);
  CHECK(table->rows[2].line == 5);  // the quoted line break counted as a source line
}

TEST_CASE("parseCsv strips a BOM, skips blank lines, accepts a missing final newline",
          "[unit][http]") {
  auto table = parseCsv("\xEF\xBB\xBFserial,model\n\n1,A\n   \r\n\n2,B");
  REQUIRE(table.ok());
  CHECK(table->header[0] == "serial");
  REQUIRE(table->rows.size() == 2);
  CHECK(table->rows[0].line == 3);
  CHECK(table->rows[1].line == 6);
  CHECK(table->rows[1].fields == std::vector<std::string>{"2", "B"});
}

TEST_CASE("parseCsv keeps empty fields", "[unit][http]") {
  auto table = parseCsv("a,b,c\n,,\n1,,3\n");
  REQUIRE(table.ok());
  CHECK(table->rows[0].fields == std::vector<std::string>{"", "", ""});
  CHECK(table->rows[1].fields == std::vector<std::string>{"1", "", "3"});
}

TEST_CASE("parseCsv names the line of an error", "[unit][http]") {
  requireCsvError("a,b\n1,2\n3\n", "line 3");         // too few fields
  requireCsvError("a,b\n1,2\n\n3,4,5\n", "line 4");   // too many, after a blank line
  requireCsvError("a,b\n1,\"open\n2,3\n", "line 2");  // unterminated quote
  requireCsvError("a,b\n\"x\"y,2\n", "line 2");       // text after a closing quote
  requireCsvError("", "line 1");                      // no header
  requireCsvError("\n\n  \n", "line 1");              // only blank lines
  requireCsvError("serial,Serial\n1,2\n", "line 1");  // duplicate column
  requireCsvError("a,,b\n1,2,3\n", "line 1");         // empty column name
}

TEST_CASE("CsvTable finds columns by name regardless of case and spaces", "[unit][http]") {
  auto table = parseCsv("Serial , BMC_MAC\n1,2\n");
  REQUIRE(table.ok());
  CHECK(table->columnIndex("serial") == std::optional<std::size_t>(0));
  CHECK(table->columnIndex("bmc_mac") == std::optional<std::size_t>(1));
  CHECK_FALSE(table->columnIndex("rack").has_value());
}

TEST_CASE("csvEscape quotes only when needed", "[unit][http]") {
  CHECK(csvEscape("plain") == "plain");
  CHECK(csvEscape("") == "");
  CHECK(csvEscape("a,b") == "\"a,b\"");
  CHECK(csvEscape("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(csvEscape("two\nlines") == "\"two\nlines\"");
  CHECK(csvEscape(" padded") == "\" padded\"");
}

TEST_CASE("CsvWriter output parses back, and formulas are neutralised", "[unit][http]") {
  CsvWriter writer;
  writer.addRow({"serial", "note", "delta"});
  writer.addRow({"1,2", "=HYPERLINK(\"x\")", "-5"});
  writer.addRow({"multi\nline", "@SUM(A1)", "-x"});
  CHECK(writer.text().find("\r\n") != std::string::npos);
  auto table = parseCsv(writer.text());
  REQUIRE(table.ok());
  REQUIRE(table->rows.size() == 2);
  CHECK(table->rows[0].fields == std::vector<std::string>{"1,2", "'=HYPERLINK(\"x\")", "-5"});
  CHECK(table->rows[1].fields == std::vector<std::string>{"multi\nline", "'@SUM(A1)", "'-x"});
}
