#include "gate_samples.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "campaign_store.hpp"
#include "inventory/agent_tasks.hpp"

namespace workflows::rollout {
namespace {

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// One sample per test: the median over the node's GPUs.
void addTaskSamples(const std::vector<inventory::BurnInResultRecord>& results,
                    std::int64_t node_id, const std::string& model,
                    std::vector<campaign::Sample>& out) {
  std::map<std::string, std::vector<double>> by_test;
  std::map<std::string, std::string> units;
  for (const auto& r : results) {
    by_test[r.test].push_back(r.value);
    units[r.test] = r.unit;
  }
  for (auto& [test, values] : by_test) {
    out.push_back(campaign::Sample{node_id, model, test, median(std::move(values)), units[test]});
  }
}

// The node's latest finished burn-in (passed) task, if any.
common::Result<std::optional<inventory::Id>> latestPassedTask(const Env& env, std::int64_t node) {
  PROV_ASSIGN(auto tasks, inventory::listTasksForNode(*env.life.deps.db, node));
  std::optional<inventory::Id> latest;
  for (const auto& t : tasks) {
    if (t.kind == "burn_in" && t.state == "passed" && (!latest || t.id > *latest)) latest = t.id;
  }
  return latest;
}

}  // namespace

common::Result<GateSamples> gateSamples(const Env& env, const CampaignView& c,
                                        std::size_t max_control) {
  GateSamples out;
  std::set<std::string> models;
  for (const auto& n : c.nodes) {
    if (n.wave != c.current_wave || n.state != "succeeded") continue;
    PROV_ASSIGN(auto record, loadCampaignNode(env, c.id, n.node_id));
    const auto task = record.detail.find("check_task_id");
    if (task == record.detail.end() || !task->is_number_integer()) continue;
    PROV_ASSIGN(auto results, inventory::taskResults(*env.life.deps.db, task->get<inventory::Id>()));
    addTaskSamples(results, n.node_id, n.model, out.updated);
    models.insert(n.model);
  }
  std::map<std::string, std::size_t> taken;
  // Later waves first: the nodes furthest from the canary are the least likely to share its fate.
  for (auto it = c.nodes.rbegin(); it != c.nodes.rend(); ++it) {
    const auto& n = *it;
    if (n.state != "pending" || models.count(n.model) == 0 || taken[n.model] >= max_control) {
      continue;
    }
    PROV_ASSIGN(auto task, latestPassedTask(env, n.node_id));
    if (!task) continue;
    PROV_ASSIGN(auto results, inventory::taskResults(*env.life.deps.db, *task));
    addTaskSamples(results, n.node_id, n.model, out.control);
    ++taken[n.model];
  }
  return out;
}

nlohmann::json regressionJson(const campaign::Regression& r) {
  return {{"model", r.model},
          {"metric", r.metric},
          {"updated_median", r.updated_median},
          {"control_median", r.control_median},
          {"delta_percent", r.delta_percent},
          {"n_updated", r.n_updated},
          {"n_control", r.n_control},
          {"message", r.message}};
}

}  // namespace workflows::rollout
