#include <ctime>

#include "inventory/agent_tasks.hpp"

namespace inventory {

std::string defaultBurnInBatch(const Node& node, std::chrono::system_clock::time_point at) {
  const std::time_t when = std::chrono::system_clock::to_time_t(at);
  std::tm utc{};
  gmtime_r(&when, &utc);
  char day[16];
  std::strftime(day, sizeof day, "%Y-%m-%d", &utc);
  const std::string place = node.rack.empty() ? "unracked" : node.site + "/" + node.rack;
  return place + "@" + day;
}

}  // namespace inventory
