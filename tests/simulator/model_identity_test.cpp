// Personalisation: unique, deterministic identities that keep the vendor's formats.
#include <set>

#include <catch2/catch.hpp>

#include "simulator/support/model_support.hpp"

using namespace modeltest;

TEST_CASE("Identities are unique over 1000 ids and deterministic") {
  auto p = profile("dgx-h100");
  sim::SimClock clock;
  std::set<std::string> serials, macs, uuids;
  std::size_t values = 0;
  for (int i = 0; i < 1000; ++i) {
    sim::BmcModel model(p, "node-" + std::to_string(i), 7, kCredentials, clock);
    auto id = model.identity();
    REQUIRE(id.gpuSerials.size() == 8);
    serials.insert(id.chassisSerial);
    serials.insert(id.systemSerial);
    for (const auto& s : id.gpuSerials) serials.insert(s);
    for (const auto& u : id.gpuUuids) uuids.insert(u);
    uuids.insert(id.uuid);
    macs.insert(id.bmcMac);
    for (const auto& m : id.hostMacs) macs.insert(m);
    values += id.hostMacs.size() + 1;
  }
  CHECK(serials.size() == 1000 * 10);
  CHECK(uuids.size() == 1000 * 9);
  CHECK(macs.size() == values);
  sim::BmcModel again(p, "node-5", 7, kCredentials, clock);
  sim::BmcModel same(p, "node-5", 7, kCredentials, clock);
  CHECK(again.identity().systemSerial == same.identity().systemSerial);
  CHECK(again.identity().gpuUuids == same.identity().gpuUuids);
}

TEST_CASE("Personalised values keep the recorded format") {
  Bmc recorded("dell-r750", "x", 1, false);
  Bmc personal("dell-r750", "x", 1, true);
  auto a = recorded.model->identity();
  auto b = personal.model->identity();
  CHECK(a.systemSerial != b.systemSerial);
  CHECK(a.systemSerial.size() == b.systemSerial.size());
  CHECK(a.systemSerial.substr(0, 2) == b.systemSerial.substr(0, 2));
  CHECK(a.bmcMac.size() == b.bmcMac.size());
  CHECK(a.bmcMac != b.bmcMac);
  CHECK(a.uuid.size() == b.uuid.size());
  // The serial is the same wherever it appears (system and chassis agree).
  auto system = personal.json(personal.behaviour().hostSystems.front());
  CHECK(system["SerialNumber"] == b.systemSerial);
}

TEST_CASE("A chassis serial fault changes the reported chassis serial") {
  Bmc bmc("lenovo-sr670v2");
  sim::BehaviourFaults faults;
  faults.chassisSerial = "WRONG123";
  bmc.model->setFaults(faults);
  CHECK(bmc.model->identity().chassisSerial == "WRONG123");
  CHECK(bmc.json(bmc.behaviour().mainChassis)["SerialNumber"] == "WRONG123");
}

TEST_CASE("PCIe down-trained GPUs report x8 of x16") {
  Bmc bmc("supermicro-hgx-h100");
  const auto& gpu = bmc.behaviour().gpuPcieDevices.at(0);
  CHECK(bmc.json(gpu)["PCIeInterface"]["LanesInUse"] == 16);
  sim::BehaviourFaults faults;
  faults.pcieDownTrained = true;
  bmc.model->setFaults(faults);
  auto link = bmc.json(gpu)["PCIeInterface"];
  CHECK(link["LanesInUse"] == 8);
  CHECK(link["MaxLanes"] == 16);
}
