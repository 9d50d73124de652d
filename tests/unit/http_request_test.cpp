#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "provisioner/http/request.hpp"

using namespace provisioner::http;

TEST_CASE("Request looks up headers case-insensitively", "[unit][http]") {
  Request request;
  request.headers = {{"Content-Type", "text/csv"}, {"X-Request-Id", "abc"}};
  CHECK(request.header("content-type") == "text/csv");
  CHECK(request.header("X-REQUEST-ID") == "abc");
  CHECK(request.header("Authorization").empty());
}

TEST_CASE("Request gives query and path parameters", "[unit][http]") {
  Request request;
  request.query_params = {{"limit", "10"}, {"state", "ready"}, {"state", "failed"}};
  request.path_params = {{"id", "42"}};
  CHECK(request.query("limit") == std::optional<std::string>("10"));
  CHECK(request.query("state") == std::optional<std::string>("ready"));
  CHECK_FALSE(request.query("cursor").has_value());
  CHECK(request.pathParam("id") == "42");
  CHECK(request.pathParam("serial").empty());
}

TEST_CASE("methods parse exactly and know which are mutating", "[unit][http]") {
  CHECK(parseMethod("PATCH") == Method::kPatch);
  CHECK_FALSE(parseMethod("patch").has_value());
  CHECK_FALSE(parseMethod("HEAD").has_value());
  CHECK_FALSE(isMutating(Method::kGet));
  for (auto method : {Method::kPost, Method::kPut, Method::kPatch, Method::kDelete}) {
    CHECK(isMutating(method));
    CHECK(parseMethod(toString(method)) == method);
  }
}

TEST_CASE("jsonResponse serialises the body and never throws on bad UTF-8", "[unit][http]") {
  auto response = jsonResponse(201, {{"id", 7}, {"name", std::string("r\xff")}});
  CHECK(response.status == 201);
  CHECK(response.content_type == "application/json");
  auto body = nlohmann::json::parse(response.body);
  CHECK(body["id"] == 7);
}
