// BMCs seen on the network (DHCP leases, subnet sweeps, rack manifests) and sweep records
// (migration 0004). Recording the same BMC again only refreshes it: triggers are repeated and
// duplicated in real networks.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "inventory/database.hpp"
#include "inventory/types.hpp"

namespace inventory {

struct DiscoveryReport {
  std::string bmc_mac;  // normalised; "" when unknown (a sweep)
  std::string bmc_address;
  std::string hostname, vendor_class;
  std::string source;  // dhcp, sweep, manifest, redfish_event, operator
  std::string site, rack;
  std::optional<int> u_position;
  std::string expected_serial;
  bool released = false;  // a DHCP "del": the lease ended (the row is kept)
};

struct Discovery {
  Id id = 0;
  std::string bmc_mac, bmc_address, hostname, vendor_class, source, site, rack;
  std::optional<int> u_position;
  std::string expected_serial, lease_state;
  std::optional<Id> node_id;
  int seen_count = 0;
  Timestamp first_seen_at, last_seen_at;
};

struct RecordedDiscovery {
  Discovery discovery;
  bool created = false;  // false: seen before (refreshed: address, last_seen_at, seen_count)
};
// By MAC when given, else by address among MAC-less rows. A manifest's site/rack/u/serial are
// kept when a later lease lacks them. Bad MAC: InvalidArgument "invalid_mac".
common::Result<RecordedDiscovery> recordDiscovery(Database& db, const DiscoveryReport& report);
common::Result<Discovery> getDiscovery(Database& db, Id id);
common::Result<Page<Discovery>> listDiscoveries(Database& db, PageRequest page);
// The node a discovered BMC turned out to be (set by the lifecycle's match step); also fills in
// the MAC of a row found by address once the BMC told it.
common::Result<void> linkDiscoveryToNode(Database& db, Id discovery_id, Id node_id,
                                         const std::string& bmc_mac);

struct Sweep {
  Id id = 0;
  std::string cidr, scheme;
  int port = 443;
  std::string site, rack, state;
  int addresses = 0, probed = 0, found = 0;
  std::string error, requested_by;
  Timestamp created_at, finished_at;
};
struct NewSweep {
  std::string cidr, scheme = "https";
  int port = 443;
  int addresses = 0;
  std::string site, rack, requested_by;
};
common::Result<Sweep> createSweep(Database& db, const NewSweep& sweep);
common::Result<void> updateSweepProgress(Database& db, Id sweep_id, int probed, int found);
common::Result<Sweep> finishSweep(Database& db, Id sweep_id, const std::string& state,
                                  const std::string& error);
common::Result<Sweep> getSweep(Database& db, Id sweep_id);

}  // namespace inventory
