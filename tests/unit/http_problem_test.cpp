#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "provisioner/http/problem.hpp"

using common::Error;
using common::ErrorKind;
using provisioner::http::httpStatusFor;
using provisioner::http::problemResponse;

TEST_CASE("every error kind maps to its documented HTTP status", "[unit][http]") {
  const std::pair<ErrorKind, int> table[] = {
      {ErrorKind::kInvalidArgument, 400},
      {ErrorKind::kNotFound, 404},
      {ErrorKind::kConflict, 409},
      {ErrorKind::kUnprocessable, 422},
      {ErrorKind::kUnauthenticated, 401},
      {ErrorKind::kPermissionDenied, 403},
      {ErrorKind::kPayloadTooLarge, 413},
      {ErrorKind::kUnsupportedMediaType, 415},
      {ErrorKind::kUnavailable, 503},
      {ErrorKind::kTimeout, 504},
      {ErrorKind::kProtocol, 502},
      {ErrorKind::kInternal, 500},
  };
  for (const auto& [kind, status] : table) {
    INFO(common::toString(kind));
    CHECK(httpStatusFor(kind) == status);
    CHECK(httpStatusFor(Error{kind, "x", "y", {}, {}}) == status);
  }
}

TEST_CASE("problemResponse writes an RFC 7807 body", "[unit][http]") {
  auto error =
      common::conflict("duplicate_serial", "chassis serial SN1 is already on PO-7", "line 7");
  auto response = problemResponse(error, "req-1");
  CHECK(response.status == 409);
  CHECK(response.content_type == "application/problem+json");
  auto body = nlohmann::json::parse(response.body);
  CHECK(body["type"] == "https://provisioner.dev/problems/duplicate_serial");
  CHECK(body["title"] == "Conflict");
  CHECK(body["status"] == 409);
  CHECK(body["code"] == "duplicate_serial");
  CHECK(body["detail"] == "chassis serial SN1 is already on PO-7");
  CHECK(body["field"] == "line 7");
  CHECK(body["request_id"] == "req-1");
}

TEST_CASE("problemResponse leaves out an empty field and never shows Error::detail",
          "[unit][http]") {
  auto error = common::unavailable("database_unavailable", "the database cannot be reached")
                   .withDetail("host=10.0.0.5 statement=select_node");
  auto body = nlohmann::json::parse(problemResponse(error, "r").body);
  CHECK(body["status"] == 503);
  CHECK_FALSE(body.contains("field"));
  CHECK(body.dump().find("10.0.0.5") == std::string::npos);
}

TEST_CASE("internal errors do not leak their message", "[unit][http]") {
  auto error = common::internalError("pqxx: relation \"secret_table\" does not exist")
                   .withField("password")
                   .withDetail("stack");
  auto response = problemResponse(error, "r-9");
  CHECK(response.status == 500);
  auto body = nlohmann::json::parse(response.body);
  CHECK(body["code"] == "internal");
  CHECK(body["type"] == "https://provisioner.dev/problems/internal");
  CHECK(body["request_id"] == "r-9");
  CHECK_FALSE(body.contains("field"));
  CHECK(response.body.find("secret_table") == std::string::npos);
}

TEST_CASE("problemResponse survives invalid UTF-8 in a message", "[unit][http]") {
  auto error = common::notFound("node_not_found", std::string("no node \xff\xfe"));
  auto response = problemResponse(error, "r");
  CHECK(response.status == 404);
  CHECK(nlohmann::json::parse(response.body)["code"] == "node_not_found");
}

TEST_CASE("problemResponse for statuses without an error kind", "[unit][http]") {
  auto response = problemResponse(405, "method_not_allowed", "PUT is not allowed", "r");
  CHECK(response.status == 405);
  auto body = nlohmann::json::parse(response.body);
  CHECK(body["title"] == "Method Not Allowed");
  CHECK(body["code"] == "method_not_allowed");
}
