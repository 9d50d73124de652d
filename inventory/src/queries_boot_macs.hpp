// SQL of boot MACs: the host NIC MACs a node network-boots with.
#pragma once

#include "db.hpp"

namespace inventory::detail {

// A MAC already recorded inserts nothing; the caller then asks whose it is.
constexpr Query kInsertBootMac{"insert_boot_mac", R"(
  INSERT INTO boot_macs (mac, node_id, source) VALUES ($1, $2, $3)
  ON CONFLICT ON CONSTRAINT boot_macs_mac_key DO NOTHING
  RETURNING id)"};
constexpr Query kSelectBootMacNode{"select_boot_mac_node",
                                   "SELECT node_id FROM boot_macs WHERE mac = $1"};
constexpr Query kSelectBootMacsOfNode{"select_boot_macs_of_node",
                                      "SELECT mac FROM boot_macs WHERE node_id = $1 ORDER BY mac"};
constexpr Query kSelectNodeExists{"select_node_exists", "SELECT 1 FROM nodes WHERE id = $1"};

}  // namespace inventory::detail
