// Host facts from a sysfs-shaped tree in a temporary directory.
#include <catch2/catch.hpp>

#include <fstream>
#include <random>

#include "agent/agent_main.hpp"

namespace fs = std::filesystem;

namespace {

struct TempSys {
  TempSys()
      : root(fs::temp_directory_path() / ("agent-sys-" + std::to_string(std::random_device{}()))) {
    fs::create_directories(root);
  }
  ~TempSys() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  void write(const std::string& relative, const std::string& text) {
    fs::create_directories((root / relative).parent_path());
    std::ofstream(root / relative) << text;
  }
  fs::path root;
};

}  // namespace

TEST_CASE("agent host facts read the DMI serial and physical NICs", "[agent]") {
  TempSys sys;
  sys.write("class/dmi/id/product_serial", "  SRV-1234\n");
  sys.write("class/net/lo/address", "00:00:00:00:00:00\n");
  sys.write("class/net/enp2s0/address", "AA:BB:CC:00:11:22\n");
  sys.write("class/net/enp1s0f0/address", "aa:bb:cc:00:11:21\n");
  sys.write("class/net/docker0/address", "02:42:ac:11:00:01\n");
  sys.write("devices/virtual/net/docker0/address", "02:42:ac:11:00:01\n");
  sys.write("class/net/ib0/address", "garbage\n");

  auto facts = agent::readHostFacts(sys.root);
  CHECK(facts.host_serial == "SRV-1234");
  REQUIRE(facts.nics.size() == 2);
  CHECK(facts.nics[0].name == "enp1s0f0");
  CHECK(facts.nics[1].name == "enp2s0");
  CHECK(facts.nics[1].mac == "aa:bb:cc:00:11:22");
}

TEST_CASE("agent host facts are empty when sysfs is unreadable", "[agent]") {
  TempSys sys;
  auto facts = agent::readHostFacts(sys.root / "absent");
  CHECK(facts.host_serial.empty());
  CHECK(facts.nics.empty());
}
