#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "provisioner/http/json_input.hpp"

using provisioner::http::FieldReader;
using provisioner::http::parseJsonObject;

namespace {

nlohmann::json parseOk(std::string_view text) {
  auto parsed = parseJsonObject(text);
  REQUIRE(parsed.ok());
  return *parsed;
}

template <class T>
void requireError(const common::Result<T>& result, const std::string& code,
                  const std::string& field) {
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().kind == common::ErrorKind::kInvalidArgument);
  CHECK(result.error().code == code);
  CHECK(result.error().field == field);
}

std::string arrays(std::size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

}  // namespace

TEST_CASE("parseJsonObject reports malformed JSON with a position, not the body", "[unit][http]") {
  auto parsed = parseJsonObject("{\"password\": \"hunter2\",\n \"x\": tru}");
  requireError(parsed, "malformed_json", "");
  CHECK(parsed.error().message.find("line 2") != std::string::npos);
  CHECK(parsed.error().message.find("hunter2") == std::string::npos);
  requireError(parseJsonObject(""), "malformed_json", "");
  requireError(parseJsonObject("{\"a\":1} trailing"), "malformed_json", "");
  requireError(parseJsonObject("{\"a\":\"\xff\"}"), "malformed_json", "");  // invalid UTF-8
}

TEST_CASE("parseJsonObject wants an object", "[unit][http]") {
  for (const char* text : {"[]", "42", "\"s\"", "null", "true"}) {
    INFO(text);
    requireError(parseJsonObject(text), "invalid_body", "");
  }
  CHECK(parseOk(" {\"a\": [1, {\"b\": null}]} ")["a"][0] == 1);
}

TEST_CASE("parseJsonObject limits nesting depth", "[unit][http]") {
  // The object is level 1: 1 + 63 arrays pass, 1 + 64 do not; 100000 never reach the parser.
  CHECK(parseJsonObject("{\"a\":" + arrays(63) + "}").ok());
  requireError(parseJsonObject("{\"a\":" + arrays(64) + "}"), "invalid_body", "");
  requireError(parseJsonObject(std::string(100000, '[')), "invalid_body", "");
  // Brackets inside strings do not count.
  CHECK(parseJsonObject("{\"a\":\"" + std::string(200, '[') + "\\\"" + "\"}").ok());
}

TEST_CASE("FieldReader reads required and optional strings", "[unit][http]") {
  auto json = parseOk(R"({"po_number":"PO-1","vendor":"","note":null,"qty":3})");
  FieldReader reader(json);
  CHECK(*reader.requiredString("po_number") == "PO-1");
  requireError(reader.requiredString("missing"), "missing_field", "missing");
  requireError(reader.requiredString("note"), "missing_field", "note");      // null is absent
  requireError(reader.requiredString("vendor"), "invalid_field", "vendor");  // empty
  auto wrong = reader.requiredString("qty");
  requireError(wrong, "invalid_field", "qty");
  CHECK(wrong.error().message.find("a string") != std::string::npos);
  CHECK(reader.optionalString("vendor")->value().empty());
  CHECK_FALSE(reader.optionalString("note")->has_value());
  CHECK_FALSE(reader.optionalString("absent")->has_value());
  requireError(reader.requiredString("po_number", 3), "invalid_field", "po_number");
}

TEST_CASE("FieldReader reads integers within a range", "[unit][http]") {
  auto json =
      parseOk(R"({"u":42,"neg":-3,"big":18446744073709551615,"f":1.5,"s":"7","b":true,"z":0})");
  FieldReader reader(json);
  CHECK(*reader.requiredInt("u", 1, 52) == 42);
  CHECK(reader.optionalInt("neg", -10, 10)->value() == -3);
  CHECK(*reader.requiredInt("z", 0, 0) == 0);
  requireError(reader.requiredInt("u", 1, 41), "invalid_field", "u");
  requireError(reader.requiredInt("neg", 0, 10), "invalid_field", "neg");
  requireError(reader.requiredInt("big"), "invalid_field", "big");
  requireError(reader.requiredInt("f"), "invalid_field", "f");
  requireError(reader.requiredInt("s"), "invalid_field", "s");
  requireError(reader.requiredInt("b"), "invalid_field", "b");
  requireError(reader.requiredInt("absent"), "missing_field", "absent");
  CHECK_FALSE(reader.optionalInt("absent")->has_value());
  auto wrong = reader.optionalInt("f", 0, 8);
  CHECK(wrong.error().message.find("an integer from 0 to 8") != std::string::npos);
}

TEST_CASE("FieldReader reads booleans", "[unit][http]") {
  auto json = parseOk(R"({"t":true,"f":false,"n":1})");
  FieldReader reader(json);
  CHECK(reader.optionalBool("t")->value());
  CHECK_FALSE(reader.optionalBool("f")->value());
  CHECK_FALSE(reader.optionalBool("absent")->has_value());
  requireError(reader.optionalBool("n"), "invalid_field", "n");
}

TEST_CASE("FieldReader names nested fields by their path", "[unit][http]") {
  auto json = parseOk(R"({"assets":[{"model":"A"},{"model":"B"},{"model":"C"},{"model":7}],
                          "location":{"rack":{"u":"x"}},"bad":[1],"tags":["a",3],"obj":[]})");
  FieldReader reader(json);
  auto assets = reader.arrayOfObjects("assets");
  REQUIRE(assets.ok());
  REQUIRE(assets->size() == 4);
  CHECK((*assets)[1].path() == "assets[1]");
  CHECK(*(*assets)[2].requiredString("model") == "C");
  requireError((*assets)[3].requiredString("model"), "invalid_field", "assets[3].model");
  requireError((*assets)[0].requiredString("serial"), "missing_field", "assets[0].serial");

  auto location = reader.optionalObject("location");
  REQUIRE(location.ok());
  auto rack = location->value().optionalObject("rack");
  REQUIRE(rack.ok());
  requireError(rack->value().optionalInt("u"), "invalid_field", "location.rack.u");

  requireError(reader.arrayOfObjects("bad"), "invalid_field", "bad[0]");
  requireError(reader.arrayOfObjects("location"), "invalid_field", "location");
  requireError(reader.optionalObject("obj"), "invalid_field", "obj");
  requireError(reader.arrayOfStrings("tags"), "invalid_field", "tags[1]");
  CHECK(reader.arrayOfObjects("absent")->empty());
  CHECK_FALSE(reader.optionalObject("absent")->has_value());
  CHECK(reader.has("assets"));
  CHECK_FALSE(reader.has("absent"));
}

TEST_CASE("FieldReader ignores unknown fields", "[unit][http]") {
  auto json = parseOk(R"({"name":"x","surprise":{"deep":[1,2,3]}})");
  CHECK(*FieldReader(json).requiredString("name") == "x");
}
