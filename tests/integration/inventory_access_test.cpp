#include <catch2/catch.hpp>

#include "integration/inventory_test_support.hpp"
#include "inventory/access.hpp"

using namespace inventory;

TEST_CASE("tokens: created, found by hash, listed and revoked",
          "[integration][inventory][access]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  std::string hash = common::sha256Hex("token-one");
  auto t = createToken(db, "ci-bot", "operator", hash);
  REQUIRE_OK(t);
  CHECK(t->name == "ci-bot");
  CHECK(t->role == "operator");
  CHECK_FALSE(t->revoked_at.has_value());
  CHECK(inventory_test::scalar(inv.url, "SELECT token_hash FROM api_tokens") == hash);

  auto found = findTokenByHash(db, hash);
  REQUIRE_OK(found);
  CHECK(found->id == t->id);
  CHECK(findTokenByHash(db, common::sha256Hex("other")).error().code == "token_not_found");

  CHECK(createToken(db, "x", "superuser", common::sha256Hex("x")).error().code == "invalid_role");
  auto dup = createToken(db, "again", "viewer", hash);
  REQUIRE_FALSE(dup.ok());
  CHECK(dup.error().kind == common::ErrorKind::kConflict);
  CHECK(dup.error().detail.find(hash) == std::string::npos);  // never echo the hash

  REQUIRE_OK(createToken(db, "viewer", "viewer", common::sha256Hex("two")));
  auto list = listTokens(db);
  REQUIRE_OK(list);
  REQUIRE(list->size() == 2);
  CHECK((*list)[0].name == "ci-bot");
  CHECK((*list)[1].role == "viewer");

  auto revoked = revokeToken(db, t->id);
  REQUIRE_OK(revoked);
  REQUIRE(revoked->revoked_at.has_value());
  auto twice = revokeToken(db, t->id);
  REQUIRE_OK(twice);
  CHECK(twice->revoked_at == revoked->revoked_at);  // the first revocation time stays
  CHECK(findTokenByHash(db, hash)->revoked_at == revoked->revoked_at);
  CHECK(revokeToken(db, 9999).error().code == "token_not_found");
}

TEST_CASE("audit log: appended and listed newest first in pages",
          "[integration][inventory][access]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  for (int i = 1; i <= 5; ++i) {
    AuditEntry e;
    e.token_id = i == 3 ? std::nullopt : std::optional<Id>(42);
    e.actor = i == 3 ? "anonymous" : "ci-bot";
    e.role = "operator";
    e.method = "POST";
    e.path = "/api/v1/nodes";
    e.action = "nodes.create";
    e.request_id = "req-" + std::to_string(i);
    e.status = i == 3 ? 401 : 201;
    e.outcome = i == 3 ? "unauthenticated" : "success";
    e.detail_json = R"({"n": )" + std::to_string(i) + "}";
    REQUIRE_OK(appendAudit(db, e));
  }
  auto p1 = listAudit(db, PageRequest{0, 2});
  REQUIRE_OK(p1);
  REQUIRE(p1->items.size() == 2);
  CHECK(p1->items[0].request_id == "req-5");
  CHECK(p1->items[1].request_id == "req-4");
  CHECK(p1->items[0].detail_json == R"({"n": 5})");
  REQUIRE(p1->next_after == p1->items[1].id);

  auto p2 = listAudit(db, PageRequest{*p1->next_after, 2});
  REQUIRE_OK(p2);
  REQUIRE(p2->items.size() == 2);
  CHECK(p2->items[0].request_id == "req-3");
  CHECK_FALSE(p2->items[0].token_id.has_value());
  CHECK(p2->items[0].status == 401);
  CHECK(p2->items[0].outcome == "unauthenticated");
  CHECK(p2->items[1].token_id == 42);

  auto p3 = listAudit(db, PageRequest{*p2->next_after, 2});
  REQUIRE_OK(p3);
  REQUIRE(p3->items.size() == 1);
  CHECK(p3->items[0].request_id == "req-1");
  CHECK(p3->items[0].at.back() == 'Z');
  CHECK_FALSE(p3->next_after.has_value());

  AuditEntry bad;
  bad.detail_json = "{oops";
  CHECK(appendAudit(db, bad).error().kind == common::ErrorKind::kInvalidArgument);
  CHECK(inventory_test::count(inv.url, "audit_log") == 5);
}
