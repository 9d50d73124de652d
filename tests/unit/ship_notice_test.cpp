#include <catch2/catch.hpp>

#include "provisioner/api/ship_notice.hpp"

using provisioner::api::parseShipNotice;

TEST_CASE("a ship notice maps columns by name, in any order", "[unit][csv][po]") {
  auto units = parseShipNotice(
      "U,Rack,Serial,Model,BMC_MAC,factory_password,gpu_count,comment\r\n"
      "12,R07,SN-1,SYS-821GE,3C-EC-EF-00-00-01,\"p,w\",8,first\r\n"
      "\r\n"
      "14,R07,SN-2,SYS-821GE,3cecef000002,pw2,,\r\n");
  REQUIRE(units.ok());
  REQUIRE(units->size() == 2);
  const auto& a = (*units)[0];
  CHECK(a.chassis_serial == "SN-1");
  CHECK(a.bmc_mac == "3c:ec:ef:00:00:01");
  CHECK(a.factory_password == "p,w");
  CHECK(a.rack == "R07");
  CHECK(a.u_position == 12);
  CHECK(a.gpu_count == 8);
  CHECK(a.source_line == 2);
  CHECK_FALSE((*units)[1].gpu_count.has_value());
  CHECK((*units)[1].source_line == 4);
}

TEST_CASE("a bad ship notice line is reported by its line number", "[unit][csv][po]") {
  const std::string header = "serial,model,bmc_mac,factory_password,rack,u\n";
  auto bad_u = parseShipNotice(
      header + "SN-1,M,aa:bb:cc:dd:ee:ff,pw,R1,3\nSN-2,M,aa:bb:cc:dd:ee:fe,pw,R1,0\n");
  REQUIRE_FALSE(bad_u.ok());
  CHECK(bad_u.error().code == "invalid_csv");
  CHECK(bad_u.error().field == "line 3");

  auto bad_mac = parseShipNotice(header + "SN-1,M,zz:bb:cc:dd:ee:ff,pw,R1,3\n");
  REQUIRE_FALSE(bad_mac.ok());
  CHECK(bad_mac.error().field == "line 2");
  CHECK(bad_mac.error().message.find("bmc_mac") != std::string::npos);

  auto empty_serial = parseShipNotice(header + " ,M,aa:bb:cc:dd:ee:ff,pw,R1,3\n");
  REQUIRE_FALSE(empty_serial.ok());
  CHECK(empty_serial.error().message.find("serial is empty") != std::string::npos);

  auto missing_column =
      parseShipNotice("serial,model,bmc_mac,rack,u\nSN,M,aa:bb:cc:dd:ee:ff,R,1\n");
  REQUIRE_FALSE(missing_column.ok());
  CHECK(missing_column.error().field == "line 1");
  CHECK(missing_column.error().message.find("factory_password") != std::string::npos);

  auto no_units = parseShipNotice(header);
  REQUIRE_FALSE(no_units.ok());
  CHECK(no_units.error().code == "invalid_csv");
}
