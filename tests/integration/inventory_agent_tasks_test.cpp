// Boot MACs, agent tasks and agent tokens, against a real PostgreSQL.
#include <catch2/catch.hpp>
#include <optional>
#include <thread>

#include "integration/inventory_agent_test_support.hpp"

using namespace inventory;
using namespace agent_test;
using inventory_test::count;
using inventory_test::makeNode;
using inventory_test::scalar;

TEST_CASE("boot MACs belong to one node and malformed ones are refused",
          "[integration][inventory][agent][boot_macs]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  auto a = makeNode(db, "NODE-A", "5c:ff:35:00:00:01");
  auto b = makeNode(db, "NODE-B");

  REQUIRE_OK(addBootMacs(db, a.id, {"B8-3F-D2-00-00-02", "b8:3f:d2:00:00:01"}, "operator"));
  // Already on this node: kept, not an error.
  REQUIRE_OK(addBootMacs(db, a.id, {"b8:3f:d2:00:00:01"}, "redfish"));
  auto macs = listBootMacs(db, a.id);
  REQUIRE_OK(macs);
  CHECK(*macs == std::vector<std::string>{"b8:3f:d2:00:00:01", "b8:3f:d2:00:00:02"});
  CHECK(scalar(inv.url, "SELECT source FROM boot_macs WHERE mac = 'b8:3f:d2:00:00:01'") ==
        "operator");

  auto taken = addBootMacs(db, b.id, {"b8:3f:d2:00:00:09", "b8:3f:d2:00:00:02"}, "operator");
  REQUIRE_FALSE(taken.ok());
  CHECK(taken.error().kind == common::ErrorKind::kConflict);
  CHECK(taken.error().code == "boot_mac_in_use");
  CHECK(taken.error().field == "macs[1]");
  CHECK(listBootMacs(db, b.id)->empty());  // nothing of the refused call stayed

  auto malformed = addBootMacs(db, b.id, {"b8:3f:d2:00:00:10", "b8:3f:zz:00:00:11"}, "operator");
  REQUIRE_FALSE(malformed.ok());
  CHECK(malformed.error().kind == common::ErrorKind::kInvalidArgument);
  CHECK(malformed.error().code == "invalid_mac");
  CHECK(malformed.error().field == "macs[1]");
  CHECK(addBootMacs(db, b.id, {""}, "operator").error().code == "invalid_mac");
  CHECK(addBootMacs(db, b.id, {"b8:3f:d2:00:00:10"}, "dhcp").error().code == "invalid_source");
  CHECK(addBootMacs(db, 999999, {"b8:3f:d2:00:00:10"}, "operator").error().code ==
        "node_not_found");

  auto owner = nodeForBootMac(db, "B8:3F:D2:00:00:02");
  REQUIRE_OK(owner);
  CHECK(*owner == a.id);
  // The BMC MAC never network-boots.
  auto bmc = nodeForBootMac(db, "5c:ff:35:00:00:01");
  REQUIRE_OK(bmc);
  CHECK_FALSE(*bmc);
  CHECK(nodeForBootMac(db, "nonsense").error().code == "invalid_mac");
}

TEST_CASE("agent task lifecycle: one open task per node",
          "[integration][inventory][agent][tasks]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  auto node = makeNode(db, "NODE-A");

  auto task = makeTask(db, node.id);
  CHECK(task.state == "pending");
  CHECK(task.kind == "burn_in");
  CHECK(task.batch == "PO-7");
  CHECK(task.expected_gpus == 8);
  CHECK(task.spec_json.find("gemm") != std::string::npos);
  CHECK(task.created_by == "workflow");
  CHECK_FALSE(task.registered_at);
  CHECK(task.facts_json.empty());
  CHECK(eventKinds(db, node.id).back() == "task_created");

  AgentTaskSpec second;
  second.node_id = node.id;
  auto dup = createAgentTask(db, second, "workflow");
  REQUIRE_FALSE(dup.ok());
  CHECK(dup.error().kind == common::ErrorKind::kConflict);
  CHECK(dup.error().code == "task_already_open");
  second.node_id = 424242;
  CHECK(createAgentTask(db, second, "w").error().code == "node_not_found");
  second.node_id = node.id;
  second.kind = "reboot";
  CHECK(createAgentTask(db, second, "w").error().code == "invalid_kind");
  second.kind = "wipe";
  second.spec_json = "[unclosed";
  CHECK(createAgentTask(db, second, "w").error().field == "spec");

  auto open = openTaskForNode(db, node.id);
  REQUIRE_OK(open);
  REQUIRE(*open);
  CHECK((*open)->id == task.id);

  auto registered =
      recordRegistration(db, task.id, R"({"gpus":8})", {"b8:3f:d2:00:00:01", "b8:3f:d2:00:00:02"});
  REQUIRE_OK(registered);
  CHECK(registered->registered_at);
  CHECK(registered->facts_json.find("\"gpus\": 8") != std::string::npos);
  CHECK(listBootMacs(db, node.id)->size() == 2);
  CHECK(scalar(inv.url, "SELECT DISTINCT source FROM boot_macs") == "agent");
  CHECK(eventKinds(db, node.id).back() == "agent_registered");
  CHECK(recordRegistration(db, task.id, "not json", {}).error().field == "facts");

  auto started = markTaskStarted(db, task.id);
  REQUIRE_OK(started);
  CHECK(started->state == "running");
  REQUIRE(started->started_at);
  auto again = markTaskStarted(db, task.id);  // idempotent
  REQUIRE_OK(again);
  CHECK(again->started_at == started->started_at);
  REQUIRE_OK(recordProgress(db, task.id, R"({"test":"hbm","percent":40})"));
  CHECK(getAgentTask(db, task.id)->progress_json.find("hbm") != std::string::npos);

  auto cancelled = cancelAgentTask(db, task.id, "alice", "rack moved");
  REQUIRE_OK(cancelled);
  CHECK(cancelled->state == "cancelled");
  CHECK(cancelled->finished_at);
  auto event = lastEvent(db, node.id);
  CHECK(event.kind == "task_cancelled");
  CHECK(event.actor == "alice");
  CHECK(event.message.find("rack moved") != std::string::npos);

  CHECK(cancelAgentTask(db, task.id, "alice", "").error().code == "task_not_open");
  CHECK(markTaskStarted(db, task.id).error().code == "task_not_open");
  CHECK(recordProgress(db, task.id, "{}").error().code == "task_not_open");
  CHECK(recordRegistration(db, task.id, "{}", {}).error().code == "task_not_open");
  CHECK(getAgentTask(db, 777777).error().code == "task_not_found");
  CHECK_FALSE(*openTaskForNode(db, node.id));

  // The node is free for its next task; the list is newest first.
  auto next = makeTask(db, node.id);
  auto tasks = listTasksForNode(db, node.id);
  REQUIRE_OK(tasks);
  REQUIRE(tasks->size() == 2);
  CHECK((*tasks)[0].id == next.id);
  CHECK((*tasks)[1].id == task.id);
}

TEST_CASE("registration keeps a MAC that boots another node there and flags it",
          "[integration][inventory][agent][tasks]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  auto a = makeNode(db, "NODE-A");
  auto b = makeNode(db, "NODE-B");
  REQUIRE_OK(addBootMacs(db, a.id, {"b8:3f:d2:00:00:01"}, "operator"));
  auto task = makeTask(db, b.id);

  auto r = recordRegistration(db, task.id, "{}", {"b8:3f:d2:00:00:02", "b8:3f:d2:00:00:01"});
  REQUIRE_OK(r);
  CHECK(r->registered_at);
  // The free MAC is B's now; the taken one still boots A.
  CHECK(*listBootMacs(db, b.id) == std::vector<std::string>{"b8:3f:d2:00:00:02"});
  CHECK(*listBootMacs(db, a.id) == std::vector<std::string>{"b8:3f:d2:00:00:01"});
  auto detail = getNodeDetail(db, b.id);
  REQUIRE_OK(detail);
  bool flagged = false;
  for (const auto& e : detail->timeline) {
    if (e.kind == "boot_mac_conflict") {
      flagged = e.message.find("b8:3f:d2:00:00:01 (node " + std::to_string(a.id) + ")") !=
                std::string::npos;
    }
  }
  CHECK(flagged);
}

TEST_CASE("concurrent task creation for one node opens exactly one",
          "[integration][inventory][agent][tasks]") {
  auto inv = inventory_test::freshInventory(8);
  auto& db = *inv.db;
  auto node = makeNode(db, "NODE-A");
  constexpr int kThreads = 6;
  std::vector<std::optional<common::Result<AgentTask>>> results(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      AgentTaskSpec spec;
      spec.node_id = node.id;
      results[i].emplace(createAgentTask(db, spec, "t"));
    });
  }
  for (auto& t : threads) t.join();
  int created = 0;
  for (const auto& r : results) {
    if (r->ok()) {
      ++created;
    } else {
      CHECK(r->error().code == "task_already_open");
    }
  }
  CHECK(created == 1);
  CHECK(count(inv.url, "agent_tasks") == 1);
}

TEST_CASE("agent tokens: node scope kind use expiry and revocation",
          "[integration][inventory][agent][tokens]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  auto node = makeNode(db, "NODE-A");
  auto other = makeNode(db, "NODE-B");
  auto task = makeTask(db, node.id);
  issue(db, task, "boot-1", "boot");
  issue(db, task, "session-1", "session");

  auto wrong_node = checkAgentToken(db, tokenHash("boot-1"), other.id, "boot", true);
  REQUIRE_FALSE(wrong_node.ok());
  CHECK(wrong_node.error().kind == common::ErrorKind::kPermissionDenied);
  CHECK(wrong_node.error().code == "agent_token_wrong_node");
  CHECK(refusal(checkAgentToken(db, tokenHash("boot-1"), node.id, "session", true)) ==
        "agent_token_wrong_kind");
  auto unknown = checkAgentToken(db, tokenHash("guess"), node.id, "boot", true);
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().kind == common::ErrorKind::kUnauthenticated);
  CHECK(unknown.error().code == "agent_token_unknown");
  // Refused presentations did not use the token up.
  CHECK(scalar(inv.url, "SELECT count(*) FROM agent_tokens WHERE used_at IS NOT NULL") == "0");

  auto grant = checkAgentToken(db, tokenHash("boot-1"), node.id, "boot", true);
  REQUIRE_OK(grant);
  CHECK(grant->node_id == node.id);
  CHECK(grant->task_id == task.id);
  auto twice = checkAgentToken(db, tokenHash("boot-1"), node.id, "boot", true);
  REQUIRE_FALSE(twice.ok());
  CHECK(twice.error().kind == common::ErrorKind::kUnauthenticated);
  CHECK(twice.error().code == "agent_token_used");

  // Session tokens are presented many times.
  REQUIRE_OK(checkAgentToken(db, tokenHash("session-1"), node.id, "session", false));
  REQUIRE_OK(checkAgentToken(db, tokenHash("session-1"), node.id, "session", false));

  issue(db, task, "expired", "session", 0);
  CHECK(refusal(checkAgentToken(db, tokenHash("expired"), node.id, "session", false)) ==
        "agent_token_expired");
  issue(db, task, "boot-expired", "boot", -5);
  CHECK(refusal(checkAgentToken(db, tokenHash("boot-expired"), node.id, "boot", true)) ==
        "agent_token_expired");

  // A newer boot token revokes the unused one before it; the used one stays "used".
  issue(db, task, "boot-2", "boot");
  issue(db, task, "boot-3", "boot");
  CHECK(refusal(checkAgentToken(db, tokenHash("boot-2"), node.id, "boot", true)) ==
        "agent_token_revoked");
  CHECK(refusal(checkAgentToken(db, tokenHash("boot-1"), node.id, "boot", true)) ==
        "agent_token_used");
  REQUIRE_OK(checkAgentToken(db, tokenHash("boot-3"), node.id, "boot", true));

  auto dup = issueAgentToken(db, {node.id, task.id, "session", tokenHash("session-1"), 60});
  CHECK(dup.error().code == "duplicate_token");
  CHECK(issueAgentToken(db, {other.id, task.id, "boot", tokenHash("x"), 60}).error().code ==
        "task_node_mismatch");
  CHECK(issueAgentToken(db, {node.id, task.id, "admin", tokenHash("x"), 60}).error().code ==
        "invalid_token_kind");
  CHECK(issueAgentToken(db, {node.id, task.id, "boot", "plaintext", 60}).error().code ==
        "invalid_token_hash");
  CHECK(issueAgentToken(db, {node.id, 9999, "boot", tokenHash("x"), 60}).error().code ==
        "task_not_found");

  REQUIRE_OK(revokeTaskTokens(db, task.id));
  CHECK(refusal(checkAgentToken(db, tokenHash("session-1"), node.id, "session", false)) ==
        "agent_token_revoked");
}

TEST_CASE("agent tokens: a boot token used with a registration key is granted again to that key",
          "[integration][inventory][agent][tokens]") {
  // The agent's retry of a registration whose answer was lost (the replica that took it was
  // killed) presents the same key: granted again. Anyone else, or a use without a key, is not.
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  auto node = makeNode(db, "NODE-A");
  auto task = makeTask(db, node.id);
  issue(db, task, "boot-1", "boot");
  const auto key = tokenHash("key-of-the-agent"), stranger = tokenHash("another-agent");

  REQUIRE_OK(checkAgentToken(db, tokenHash("boot-1"), node.id, "boot", true, key));
  const auto first_use = scalar(inv.url, "SELECT used_at FROM agent_tokens");
  auto again = checkAgentToken(db, tokenHash("boot-1"), node.id, "boot", true, key);
  REQUIRE_OK(again);
  CHECK(again->task_id == task.id);
  CHECK(scalar(inv.url, "SELECT used_at FROM agent_tokens") == first_use);  // the first use kept
  CHECK(refusal(checkAgentToken(db, tokenHash("boot-1"), node.id, "boot", true, stranger)) ==
        "agent_token_used");
  CHECK(refusal(checkAgentToken(db, tokenHash("boot-1"), node.id, "boot", true)) ==
        "agent_token_used");
  CHECK(scalar(inv.url, "SELECT used_by FROM agent_tokens") == key);
  // A token used without a key is never granted again, whatever key comes later.
  issue(db, task, "boot-2", "boot");
  REQUIRE_OK(checkAgentToken(db, tokenHash("boot-2"), node.id, "boot", true));
  CHECK(refusal(checkAgentToken(db, tokenHash("boot-2"), node.id, "boot", true, key)) ==
        "agent_token_used");
  // The task finished: its tokens are revoked, and the retry learns it.
  REQUIRE_OK(revokeTaskTokens(db, task.id));
  CHECK_FALSE(checkAgentToken(db, tokenHash("boot-1"), node.id, "boot", true, key).ok());
  CHECK(checkAgentToken(db, tokenHash("boot-1"), node.id, "boot", true, "plain").error().code ==
        "invalid_used_by");
}

TEST_CASE("two racing uses of one boot token: exactly one wins",
          "[integration][inventory][agent][tokens]") {
  auto inv = inventory_test::freshInventory(8);
  auto& db = *inv.db;
  auto node = makeNode(db, "NODE-A");
  auto task = makeTask(db, node.id);
  constexpr int kRounds = 10;
  constexpr int kThreads = 4;
  for (int round = 0; round < kRounds; ++round) {
    std::string secret = "boot-" + std::to_string(round);
    issue(db, task, secret, "boot");
    std::vector<std::optional<common::Result<AgentTokenGrant>>> results(kThreads);
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i) {
      threads.emplace_back([&, i] {
        results[i].emplace(checkAgentToken(db, tokenHash(secret), node.id, "boot", true));
      });
    }
    for (auto& t : threads) t.join();
    int granted = 0;
    for (const auto& r : results) {
      if (r->ok()) {
        ++granted;
      } else {
        CHECK(r->error().code == "agent_token_used");
      }
    }
    CHECK(granted == 1);
  }
}

TEST_CASE("cancelling a task revokes its tokens", "[integration][inventory][agent][tokens]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  auto node = makeNode(db, "NODE-A");
  auto task = makeTask(db, node.id);
  issue(db, task, "boot", "boot");
  issue(db, task, "session", "session");
  REQUIRE_OK(cancelAgentTask(db, task.id, "alice", ""));
  CHECK(refusal(checkAgentToken(db, tokenHash("boot"), node.id, "boot", true)) ==
        "agent_token_revoked");
  CHECK(refusal(checkAgentToken(db, tokenHash("session"), node.id, "session", false)) ==
        "agent_token_revoked");
  auto late = issueAgentToken(db, {node.id, task.id, "boot", tokenHash("late"), 60});
  CHECK(late.error().code == "task_not_open");
}
