// What a firmware campaign flashes on one node, from its last read and the baseline.
#include <catch2/catch.hpp>

#include "workflows/firmware/planned_updates.hpp"

namespace fw = workflows::firmware;

namespace {

fw::BaselineModel model() {
  fw::BaselineComponent bmc;
  bmc.name = "bmc";
  bmc.rule = fw::ComponentRule{"", "BMC"};
  bmc.accepted = {"24.09.17"};
  bmc.target = fw::BaselineTarget{"dgx-bmc", "24.10.1"};
  fw::BaselineComponent gpu;  // accepted versions only: reported, never flashed
  gpu.name = "gpu";
  gpu.rule = fw::ComponentRule{"", "GPU"};
  gpu.accepted = {"96.00.61"};
  fw::BaselineComponent nic;
  nic.name = "nic";
  nic.rule = fw::ComponentRule{"", "CX7"};
  nic.target = fw::BaselineTarget{"cx7", "28.39.1002"};
  fw::BaselineModel m;
  m.model = "DGX H100";
  m.components = {bmc, gpu, nic};
  return m;
}

fw::NodeFirmwareFacts read(std::vector<std::pair<std::string, std::string>> members) {
  fw::NodeFirmwareFacts n;
  n.node_id = 1;
  n.model = "DGX H100";
  n.observed_at = "2026-12-01T10:00:00Z";
  for (const auto& [id, version] : members) {
    n.members.push_back({"/fw/" + id, id, id, "", version, true});
  }
  return n;
}

}  // namespace

TEST_CASE("planned updates: only targeted components the baseline does not accept",
          "[unit][firmware]") {
  auto planned = fw::plannedUpdates(
      model(), read({{"BMC_0", "24.01.5"}, {"GPU_1", "95.00.1"}, {"CX7_0", "28.39.1002"}}));
  REQUIRE(planned.size() == 1);
  CHECK(planned[0].component == "bmc");
  CHECK(planned[0].from == "24.01.5");
  CHECK(planned[0].to == "24.10.1");
  CHECK(planned[0].package == "dgx-bmc");
}

TEST_CASE("planned updates: accepted versions, absent components and mixed members",
          "[unit][firmware]") {
  // An accepted version that is not the target stays; a component the node lacks is skipped.
  CHECK(fw::plannedUpdates(model(), read({{"BMC_0", "24.09.17"}})).empty());
  // Two members at different versions: one below is enough, both are named.
  auto planned = fw::plannedUpdates(model(), read({{"BMC_0", "24.10.1"}, {"BMC_1", "23.1.0"},
                                                   {"CX7_0", "29.0.1"}}));
  REQUIRE(planned.size() == 2);
  CHECK(planned[0].from == "23.1.0, 24.10.1");
  CHECK(planned[1].component == "nic");
  CHECK(planned[1].from == "29.0.1");  // above the target: the package decides on downgrades
}

TEST_CASE("planned updates: a node never read plans every target; unreachable uses the last read",
          "[unit][firmware]") {
  fw::NodeFirmwareFacts never;
  never.model = "DGX H100";
  auto planned = fw::plannedUpdates(model(), never);
  REQUIRE(planned.size() == 2);
  CHECK(planned[0].from == "unknown");
  CHECK(planned[1].from == "unknown");

  auto stale = read({{"BMC_0", "24.10.1"}, {"CX7_0", "28.0.1"}});
  stale.reachable = false;
  planned = fw::plannedUpdates(model(), stale);
  REQUIRE(planned.size() == 1);
  CHECK(planned[0].component == "nic");
}
