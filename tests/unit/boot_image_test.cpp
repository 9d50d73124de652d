// The image an agent task names: written into the task's spec by an image campaign, read by the
// boot route; the agent still reads the spec as its burn-in plan.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "agent/protocol.hpp"
#include "inventory/boot_image.hpp"

TEST_CASE("a task's spec names the image its boot serves", "[inventory][boot]") {
  inventory::AgentTask task;
  CHECK_FALSE(inventory::bootImageOf(task));  // "{}": the channel's image
  const std::string plan = agent::toJson(agent::defaultBurnInPlan()).dump();
  task.spec_json = inventory::withBootImage(plan, {"ubuntu", "24.04.2"});
  const auto named = inventory::bootImageOf(task);
  REQUIRE(named);
  CHECK(named->name == "ubuntu");
  CHECK(named->version == "24.04.2");
  // The agent's plan parser reads the same spec and ignores the name.
  auto parsed = agent::parseBurnInPlan(nlohmann::json::parse(task.spec_json));
  REQUIRE(parsed);
  CHECK(parsed->tests.size() == agent::defaultBurnInPlan().tests.size());
}

TEST_CASE("a malformed boot image is no boot image", "[inventory][boot]") {
  inventory::AgentTask task;
  for (const char* spec : {R"({"boot_image": "ubuntu 24.04"})", R"({"boot_image": {"name": "u"}})",
                           R"({"boot_image": {"name": "", "version": "1"}})",
                           R"({"boot_image": {"name": 1, "version": "1"}})", "not json"}) {
    task.spec_json = spec;
    INFO(spec);
    CHECK_FALSE(inventory::bootImageOf(task));
  }
  CHECK(inventory::withBootImage("not json", {"u", "1"}) ==
        R"({"boot_image":{"name":"u","version":"1"}})");
}
