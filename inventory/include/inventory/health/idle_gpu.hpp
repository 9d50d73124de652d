// A GPU idle while its node-mates are busy (the kIdleInBusyNode rules, rules.hpp), pure. The
// GPUs of one node run one job; one that sits near 0% while the others work has been left out
// (excluded by the job or the scheduler after an error, or failing at start-up): capacity lost
// that no XID or ECC count shows. No I/O: the flag evaluation run (workflows) feeds it.
#pragma once

#include <vector>

#include "inventory/health/learned_normal.hpp"
#include "inventory/health/rules.hpp"

namespace inventory::health {

// The kIdleInBusyNode rules of `policy` over one node: a GPU is flagged when, on each of the
// rule's last `min_days` calendar days ending with the node's latest day, its daily mean
// utilisation (from at least `min_samples` readings) was at most `idle_below` percent while the
// median of at least `min_peers` node-mates' (each with as many readings) was at least
// `busy_above` percent. The flag's time is the end of the latest day.
std::vector<FlagDraft> evaluateIdleGpus(const Policy& policy, const NodeHistory& node);

}  // namespace inventory::health
