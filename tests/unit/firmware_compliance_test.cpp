// Compliance: per component status from what is installed, accepted and targeted; mixed label
// groups; roll-ups and CSV.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "workflows/firmware/compliance.hpp"

namespace fw = workflows::firmware;
using fw::ComplianceStatus;

namespace {

fw::BaselineComponent bmcComponent() {
  fw::BaselineComponent c;
  c.name = "bmc";
  c.rule = fw::ComponentRule{"", "BMC"};
  c.accepted = {"24.09.17", "24.10.1"};
  c.target = fw::BaselineTarget{"dgx-bmc", "24.10.1"};
  return c;
}

fw::BaselineComponent gpuComponent() {
  fw::BaselineComponent c;
  c.name = "gpu";
  c.rule = fw::ComponentRule{"0x2330", ""};
  c.accepted = {"96.00.61"};
  return c;
}

fw::FirmwareMember member(const std::string& id, const std::string& version,
                          const std::string& software_id = "") {
  return {"/fw/" + id, id, id, software_id, version, true};
}

fw::NodeFirmwareFacts node(std::int64_t id, std::vector<fw::FirmwareMember> members) {
  fw::NodeFirmwareFacts n;
  n.node_id = id;
  n.model = "DGX H100";
  n.site = "sjc1";
  n.rack = id <= 2 ? "R01" : "R02";
  n.baseline = "b1";
  n.observed_at = "2026-12-01T00:00:00.000000Z";
  n.members = std::move(members);
  return n;
}

ComplianceStatus bmcStatus(const std::string& version) {
  return fw::componentCompliance(bmcComponent(), node(1, {member("BMC", version)})).status;
}

}  // namespace

TEST_CASE("Component status: compliant, below, above against accepted and target",
          "[unit][firmware][compliance]") {
  CHECK(bmcStatus("24.10.1") == ComplianceStatus::kCompliant);
  CHECK(bmcStatus("24.09.17") == ComplianceStatus::kCompliant);  // accepted, below the target
  CHECK(bmcStatus("24.09.5") == ComplianceStatus::kBelow);
  CHECK(bmcStatus("24.10.0") == ComplianceStatus::kBelow);
  CHECK(bmcStatus("25.01.1") == ComplianceStatus::kAbove);
  // Without a target the highest accepted version is the reference.
  auto gpu = [](const std::string& v) {
    return fw::componentCompliance(gpuComponent(), node(1, {member("GPU1", v, "0x2330")})).status;
  };
  CHECK(gpu("96.00.61") == ComplianceStatus::kCompliant);
  CHECK(gpu("96.00.5") == ComplianceStatus::kBelow);
  CHECK(gpu("97.0") == ComplianceStatus::kAbove);
}

TEST_CASE("Component status: unknown and unreachable", "[unit][firmware][compliance]") {
  auto no_member = fw::componentCompliance(bmcComponent(), node(1, {member("BIOS", "1.0")}));
  CHECK(no_member.status == ComplianceStatus::kUnknown);
  CHECK(no_member.members == 0);
  auto never = node(1, {});
  never.observed_at.reset();
  CHECK(fw::componentCompliance(bmcComponent(), never).status == ComplianceStatus::kUnknown);
  auto away = node(1, {member("BMC", "24.10.1")});
  away.reachable = false;
  auto unreachable = fw::componentCompliance(bmcComponent(), away);
  CHECK(unreachable.status == ComplianceStatus::kUnreachable);
  CHECK(unreachable.installed == std::vector<std::string>{"24.10.1"});  // the last known
}

TEST_CASE("Several matching members: any below makes the component below",
          "[unit][firmware][compliance]") {
  auto c = fw::componentCompliance(gpuComponent(), node(1, {member("GPU1", "96.00.61", "0x2330"),
                                                            member("GPU2", "97.1", "0x2330"),
                                                            member("GPU3", "96.00.5", "0x2330")}));
  CHECK(c.status == ComplianceStatus::kBelow);
  CHECK(c.members == 3);
  CHECK(c.installed == std::vector<std::string>{"96.00.5", "96.00.61", "97.1"});
}

TEST_CASE("The report: node status is the worst, mixed groups, roll-ups and coverage",
          "[unit][firmware][compliance]") {
  fw::Baseline baseline;
  baseline.name = "b1";
  baseline.models = {{"DGX H100", {bmcComponent(), gpuComponent()}}};
  std::vector<fw::NodeFirmwareFacts> nodes = {
      node(1, {member("BMC", "24.10.1"), member("GPU1", "96.00.61", "0x2330")}),
      node(2, {member("BMC", "24.09.17"), member("GPU1", "96.00.61", "0x2330")}),
      node(3, {member("BMC", "24.09.1"), member("GPU1", "96.00.61", "0x2330")}), node(4, {})};
  nodes[0].labels = {{"nvlink_domain", "nvl1"}};
  nodes[1].labels = {{"nvlink_domain", "nvl1"}};
  nodes[2].labels = {{"nvlink_domain", "nvl2"}};
  nodes[3].baseline = "";
  auto report = fw::buildComplianceReport(nodes, [&](const std::string& name) {
    return name == "b1" ? std::optional<fw::AppliedBaseline>(fw::AppliedBaseline{&baseline, 3})
                        : std::nullopt;
  });
  REQUIRE(report.nodes.size() == 3);
  CHECK(report.nodes[0].status == ComplianceStatus::kCompliant);
  CHECK(report.nodes[1].status == ComplianceStatus::kCompliant);
  CHECK(report.nodes[2].status == ComplianceStatus::kBelow);
  CHECK(report.nodes[0].revision == 3);
  REQUIRE(report.not_covered.size() == 1);
  CHECK(report.not_covered[0].node_id == 4);

  // nvl1 runs two accepted BMC versions: mixed, though each node is compliant.
  REQUIRE(report.mixed.size() == 1);
  CHECK(report.mixed[0].label == "nvlink_domain");
  CHECK(report.mixed[0].value == "nvl1");
  CHECK(report.mixed[0].component == "bmc");
  CHECK(report.mixed[0].versions.at("24.10.1") == std::vector<std::int64_t>{1});
  CHECK(report.mixed[0].versions.at("24.09.17") == std::vector<std::int64_t>{2});
  CHECK(report.nodes[0].components[0].mixed);
  CHECK_FALSE(report.nodes[0].components[1].mixed);
  CHECK_FALSE(report.nodes[2].components[0].mixed);

  REQUIRE(report.by_rack.size() == 2);
  CHECK(report.by_rack[0].rack == "R01");
  CHECK(report.by_rack[0].node_statuses[ComplianceStatus::kCompliant] == 2);
  CHECK(report.by_rack[1].node_statuses[ComplianceStatus::kBelow] == 1);
  REQUIRE(report.by_site.size() == 1);
  CHECK(report.by_site[0].nodes == 3);
  CHECK(report.total.component_statuses[ComplianceStatus::kCompliant] == 5);

  const auto j = fw::toJson(report);
  CHECK(j["rollups"]["model"][0]["statuses"]["below"] == 1);
  CHECK(j["rollups"]["model"][0]["statuses"]["unreachable"] == 0);
  CHECK(j["nodes"][2]["components"][0]["status"] == "below");
  const auto rows = fw::complianceCsvRows(report);
  REQUIRE(rows.size() == 1 + 6);
  CHECK(rows[0][12] == "status");
  CHECK(rows[5][7] == "bmc");
  CHECK(rows[5][12] == "below");
}

TEST_CASE("Mixed groups follow the labels asked for", "[unit][firmware][compliance]") {
  fw::Baseline baseline;
  baseline.name = "b1";
  baseline.models = {{"DGX H100", {bmcComponent()}}};
  std::vector<fw::NodeFirmwareFacts> nodes = {node(1, {member("BMC", "24.10.1")}),
                                              node(2, {member("BMC", "24.09.17")})};
  nodes[0].labels = {{"partition", "p1"}, {"pdu", "a"}};
  nodes[1].labels = {{"partition", "p2"}, {"pdu", "a"}};
  auto lookup = [&](const std::string&) {
    return std::optional<fw::AppliedBaseline>(fw::AppliedBaseline{&baseline, 1});
  };
  CHECK(fw::buildComplianceReport(nodes, lookup).mixed.empty());
  auto by_pdu = fw::buildComplianceReport(nodes, lookup, {"pdu"});
  REQUIRE(by_pdu.mixed.size() == 1);
  CHECK(by_pdu.mixed[0].value == "a");
}
