#include "inventory/health/xid_bursts.hpp"

#include <algorithm>
#include <map>

namespace inventory::health {
namespace {

// Where the current burst of one XID lives while grouping: a stored one or a new one.
struct Current {
  bool stored = false;
  std::size_t index = 0;
};

}  // namespace

BurstUpdate groupXids(const std::vector<XidBurst>& latest, std::vector<XidOccurrence> seen,
                      std::chrono::seconds window) {
  std::stable_sort(seen.begin(), seen.end(),
                   [](const XidOccurrence& a, const XidOccurrence& b) { return a.at < b.at; });
  std::vector<XidBurst> stored = latest;
  std::vector<bool> grew(stored.size(), false);
  BurstUpdate out;
  std::map<int, Current> current;
  for (std::size_t i = 0; i < stored.size(); ++i) current[stored[i].xid] = {true, i};

  for (const auto& x : seen) {
    auto it = current.find(x.xid);
    if (it != current.end()) {
      XidBurst& b = it->second.stored ? stored[it->second.index] : out.opened[it->second.index];
      if (x.at - b.last_at <= window) {
        b.last_at = std::max(b.last_at, x.at);
        b.first_at = std::min(b.first_at, x.at);
        ++b.count;
        if (it->second.stored) grew[it->second.index] = true;
        continue;
      }
    }
    out.opened.push_back({std::nullopt, x.xid, x.at, x.at, 1});
    current[x.xid] = {false, out.opened.size() - 1};
  }
  for (std::size_t i = 0; i < stored.size(); ++i) {
    if (grew[i]) out.extended.push_back(stored[i]);
  }
  return out;
}

}  // namespace inventory::health
