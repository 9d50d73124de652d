// provisionerctl nodes label: key=value sets, key- removes, one PATCH with the merge.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "integration/cli_fake_server.hpp"

using testing::FakeApiServer;
using testing::runCtlAt;

TEST_CASE("nodes label sends one merge PATCH and prints the labels", "[integration][cli]") {
  FakeApiServer server;
  server.answer("PATCH", "/api/v1/nodes/7/labels",
                {200, R"({"id":7,"labels":{"nvlink_domain":"nvl-3","partition":"p1"}})"});

  auto run = runCtlAt(server.url(), "tok",
                      {"nodes", "label", "7", "partition=p1", "nvlink_domain=nvl-3", "pdu-"});

  CHECK(run.err.empty());
  CHECK(run.code == 0);
  CHECK(run.out ==
        "node 7 labels (2)\n"
        "KEY            VALUE\n"
        "nvlink_domain  nvl-3\n"
        "partition      p1\n");
  auto requests = server.requests();
  REQUIRE(requests.size() == 1);
  CHECK(requests[0].method == "PATCH");
  CHECK(nlohmann::json::parse(requests[0].body) ==
        nlohmann::json{
            {"labels", {{"partition", "p1"}, {"nvlink_domain", "nvl-3"}, {"pdu", nullptr}}}});
}

TEST_CASE("nodes label refuses words that are neither key=value nor key-", "[integration][cli]") {
  FakeApiServer server;
  auto run = runCtlAt(server.url(), "tok", {"nodes", "label", "7", "partition"});
  CHECK(run.code == 64);
  CHECK(run.err.find("expected key=value or key-, got 'partition'") != std::string::npos);
  auto none = runCtlAt(server.url(), "tok", {"nodes", "label", "7"});
  CHECK(none.code == 64);
  CHECK(server.requests().empty());
}
