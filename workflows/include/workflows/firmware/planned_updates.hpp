// What a firmware campaign changes on one node: each component of the node's model in the
// baseline whose installed versions the baseline does not accept, from -> the target package.
// Pure: the node's last observation and the baseline come in, the list goes out.
#pragma once

#include <string>
#include <vector>

#include "workflows/firmware/compliance.hpp"

namespace workflows::firmware {

struct PlannedUpdate {
  std::string component;
  std::string from;  // the installed versions, lowest first, joined by ", "; "unknown" never read
  std::string to;    // the target package's version
  std::string package;
};

// In the baseline's component order. A component is planned when it has a target and the node
// either was never read (the node run reads FirmwareInventory again before it flashes, and
// flashes only the members not at the target), or runs a version that is not accepted (below or
// above: a downgrade is the package's allow_downgrade to decide). A component none of whose
// members was seen on a node that was read is not on that node and is not planned; one already
// compliant is not planned. An unreachable node is planned from its last known versions.
std::vector<PlannedUpdate> plannedUpdates(const BaselineModel& model,
                                          const NodeFirmwareFacts& node);

}  // namespace workflows::firmware
