// Every registered step is accounted for in docs/workflows.md: a step that declares side effects
// outside the database (withSideEffects) has a row of the side-effect table for each of them,
// naming its intent record and resume check; every other step is in the list of steps without
// side effects. A new step, or a new side effect of an old one, fails here until it is written
// down with how it survives a kill. No database needed: the definitions are only built.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "workflows/decommission/workflow.hpp"
#include "workflows/health_flag_drain.hpp"
#include "workflows/health_sweep.hpp"
#include "workflows/health_upkeep.hpp"
#include "workflows/lifecycle.hpp"
#include "workflows/reinventory.hpp"
#include "workflows/rollout.hpp"

namespace {

std::vector<workflows::WorkflowDef> registeredDefinitions() {
  const workflows::LifecycleDeps deps;
  const workflows::LifecycleSettings lifecycle;
  const workflows::RolloutSettings rollout;
  return {
      workflows::nodeLifecycleWorkflow(deps, lifecycle),
      workflows::nodeFirmwareUpdateWorkflow(deps, lifecycle, rollout),
      workflows::nodeImageUpdateWorkflow(deps, lifecycle, rollout),
      workflows::firmwareCampaignWorkflow(deps, lifecycle, rollout, {}),
      workflows::firmwareReinventoryWorkflow(deps, lifecycle, {}),
      workflows::nodeDecommissionWorkflow(deps, lifecycle, rollout, {}),
      workflows::gpuHealthUpkeepWorkflow(nullptr, {}),
      workflows::gpuHealthSweepWorkflow(deps, lifecycle, {}),
      workflows::gpuFlagDrainWorkflow(deps, lifecycle, rollout),
      workflows::gpuFlagReleaseWorkflow(deps, lifecycle, rollout),
      workflows::gpuFlagResetWorkflow(deps, lifecycle, rollout),
      workflows::gpuFlagBurnInWorkflow(deps, lifecycle, rollout),
  };
}

std::string docsSection() {
  std::ifstream in(std::string(PROVISIONER_TEST_SOURCE_DIR) + "/docs/workflows.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string all = text.str();
  const auto from = all.find("### Side effects: intents and resume checks");
  const auto to = all.find("\n## ", from);
  REQUIRE(from != std::string::npos);
  return all.substr(from, to - from);
}

// Backticked `kind/step` tokens in `text`.
std::set<std::string> stepTokens(const std::string& text) {
  static const std::regex token("`([a-z_]+/[a-z_]+)`");
  std::set<std::string> out;
  for (std::sregex_iterator it(text.begin(), text.end(), token), end; it != end; ++it) {
    out.insert((*it)[1]);
  }
  return out;
}

struct Documented {
  std::map<std::string, std::set<std::string>> effects;  // "kind/step" -> effect names
  std::set<std::string> without;                         // steps without side effects
};

// Table rows: | `effect`[, `effect`] | `kind/step`, ... | intent | resume check | status |
Documented documented(const std::string& section) {
  Documented d;
  static const std::regex effect_name("`([a-z_]+)`");
  std::istringstream lines(section);
  std::string line;
  std::string rest;
  bool after_table = false;
  bool in_table = false;
  while (std::getline(lines, line)) {
    if (line.rfind("| `", 0) == 0) {
      in_table = true;
      std::vector<std::string> cells;
      std::stringstream row(line.substr(1));
      std::string cell;
      while (std::getline(row, cell, '|')) cells.push_back(cell);
      REQUIRE(cells.size() >= 5);
      INFO(line);
      CHECK_FALSE(cells[2].find_first_not_of(' ') == std::string::npos);  // an intent record
      CHECK_FALSE(cells[3].find_first_not_of(' ') == std::string::npos);  // a resume check
      for (const auto& step : stepTokens(cells[1])) {
        for (std::sregex_iterator it(cells[0].begin(), cells[0].end(), effect_name), end; it != end;
             ++it) {
          d.effects[step].insert((*it)[1]);
        }
      }
    } else if (in_table) {
      after_table = true;
    }
    if (after_table) rest += line + "\n";
  }
  d.without = stepTokens(rest);
  return d;
}

}  // namespace

TEST_CASE("Every step's side effects are documented with their intent and resume check",
          "[workflows][side_effects]") {
  const auto docs = documented(docsSection());
  REQUIRE_FALSE(docs.effects.empty());
  REQUIRE_FALSE(docs.without.empty());
  std::set<std::string> registered;
  for (const auto& def : registeredDefinitions()) {
    for (const auto& step : def.steps) {
      const std::string name = def.kind + "/" + step.name;
      registered.insert(name);
      INFO(name);
      if (step.side_effects.empty()) {
        CHECK(docs.without.count(name) == 1);
        CHECK(docs.effects.count(name) == 0);
        continue;
      }
      CHECK(docs.without.count(name) == 0);
      const auto row = docs.effects.find(name);
      REQUIRE(row != docs.effects.end());
      for (const auto& effect : step.side_effects) {
        INFO(effect);
        CHECK(row->second.count(effect) == 1);
      }
      // The table claims nothing the step does not declare.
      CHECK(row->second ==
            std::set<std::string>(step.side_effects.begin(), step.side_effects.end()));
    }
  }
  // And documents no step that does not exist.
  for (const auto& [name, effects] : docs.effects) {
    INFO(name);
    CHECK(registered.count(name) == 1);
  }
  for (const auto& name : docs.without) {
    INFO(name);
    CHECK(registered.count(name) == 1);
  }
}
