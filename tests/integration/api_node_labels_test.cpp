// Node labels: PATCH merges (null removes), the node shows them, bad keys and values are refused
// naming their field with nothing stored, and only operators may change them.
#include <catch2/catch.hpp>

#include "support/service_fixture.hpp"

using nlohmann::json;
using testing::ServiceFixture;

namespace {

long long makeNode(ServiceFixture& svc, const std::string& serial) {
  auto r = svc.sendJson("POST", "/api/v1/nodes",
                        {{"chassis_serial", serial}, {"hardware_model", "DGX H100"}}, "asset");
  REQUIRE(r.status == 201);
  return r.json()["id"];
}

std::string labelsPath(long long id) {
  return "/api/v1/nodes/" + std::to_string(id) + "/labels";
}

}  // namespace

TEST_CASE("PATCH labels merges, null removes, and the node shows the labels",
          "[integration][api][labels]") {
  ServiceFixture svc;
  const long long id = makeNode(svc, "SN-L1");
  CHECK(svc.get("/api/v1/nodes/" + std::to_string(id), "viewer").json()["labels"] ==
        json::object());

  auto first =
      svc.sendJson("PATCH", labelsPath(id),
                   {{"labels", {{"partition", "p1"}, {"nvlink_domain", "nvl-3"}}}}, "operator");
  INFO(first.body);
  REQUIRE(first.status == 200);
  CHECK(first.json()["labels"] == json{{"partition", "p1"}, {"nvlink_domain", "nvl-3"}});

  auto second = svc.sendJson("PATCH", labelsPath(id),
                             {{"labels", {{"partition", nullptr}, {"pdu", "pdu-a"}}}}, "operator");
  REQUIRE(second.status == 200);
  CHECK(second.json()["labels"] == json{{"nvlink_domain", "nvl-3"}, {"pdu", "pdu-a"}});

  auto detail = svc.get("/api/v1/nodes/" + std::to_string(id), "viewer").json();
  CHECK(detail["labels"] == json{{"nvlink_domain", "nvl-3"}, {"pdu", "pdu-a"}});
  int label_events = 0;
  for (const auto& e : detail["timeline"]) label_events += e["kind"] == "labels_changed" ? 1 : 0;
  CHECK(label_events == 2);

  auto listed = svc.get("/api/v1/nodes", "viewer").json();
  CHECK(listed["items"][0]["labels"]["pdu"] == "pdu-a");
}

TEST_CASE("Bad labels are refused naming the field and nothing is stored",
          "[integration][api][labels]") {
  ServiceFixture svc;
  const long long id = makeNode(svc, "SN-L2");
  REQUIRE(svc.sendJson("PATCH", labelsPath(id), {{"labels", {{"partition", "p1"}}}}, "operator")
              .status == 200);

  auto bad_key = svc.sendJson("PATCH", labelsPath(id),
                              {{"labels", {{"pdu", "a"}, {"Bad Key", "x"}}}}, "operator");
  CHECK(bad_key.status == 400);
  CHECK(bad_key.json()["field"] == "labels");
  auto empty = svc.sendJson("PATCH", labelsPath(id), {{"labels", {{"pdu", ""}}}}, "operator");
  CHECK(empty.status == 400);
  CHECK(empty.json()["field"] == "labels.pdu");
  auto long_value = svc.sendJson("PATCH", labelsPath(id),
                                 {{"labels", {{"pdu", std::string(129, 'x')}}}}, "operator");
  CHECK(long_value.status == 400);
  CHECK(long_value.json()["field"] == "labels.pdu");
  auto number = svc.sendJson("PATCH", labelsPath(id), {{"labels", {{"pdu", 3}}}}, "operator");
  CHECK(number.status == 400);
  CHECK(number.json()["field"] == "labels.pdu");
  auto missing = svc.sendJson("PATCH", labelsPath(id), json::object(), "operator");
  CHECK(missing.status == 400);
  CHECK(missing.json()["field"] == "labels");

  CHECK(svc.get("/api/v1/nodes/" + std::to_string(id), "viewer").json()["labels"] ==
        json{{"partition", "p1"}});
  CHECK(
      svc.sendJson("PATCH", "/api/v1/nodes/999999/labels", {{"labels", {{"pdu", "a"}}}}, "operator")
          .status == 404);
  CHECK(svc.sendJson("PATCH", labelsPath(id), {{"labels", {{"pdu", "a"}}}}, "viewer").status ==
        403);
  CHECK(svc.sendJson("PATCH", labelsPath(id), {{"labels", {{"pdu", "a"}}}}, "asset").status == 403);
}
