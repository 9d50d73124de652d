// Bearer tokens: 256-bit random secrets, stored only as SHA-256 hashes; and the audit sink.
#include <spdlog/spdlog.h>

#include "inventory/access.hpp"
#include "provisioner/api/api.hpp"
#include "provisioner/http/rbac.hpp"
#include "secret_token.hpp"

namespace provisioner::api {
namespace {

constexpr std::string_view kTokenPrefix = "prov_";

class DatabaseAuthenticator final : public http::Authenticator {
 public:
  DatabaseAuthenticator(inventory::DatabasePtr db, std::shared_ptr<TokenCache> cache)
      : db_(std::move(db)), cache_(std::move(cache)) {}

  common::Result<http::Principal> authenticate(std::string_view bearer_token) override {
    const std::string hash = common::sha256Hex(bearer_token);
    if (cache_) {
      if (auto cached = cache_->find(hash)) return *cached;
    }
    auto principal = lookup(hash);
    if (principal && cache_) cache_->put(hash, *principal);
    return principal;
  }

 private:
  common::Result<http::Principal> lookup(const std::string& hash) {
    auto token = inventory::findTokenByHash(*db_, hash);
    if (!token) {
      if (token.error().kind == common::ErrorKind::kNotFound) {
        return common::fail(common::unauthenticated("unknown API token"));
      }
      return common::fail(std::move(token).error());
    }
    if (token->revoked_at) {
      common::Error e = common::unauthenticated("API token '" + token->name + "' was revoked");
      e.code = "token_revoked";
      return common::fail(std::move(e));
    }
    auto role = http::parseRole(token->role);
    if (!role) return common::fail(common::internalError("stored token has unknown role"));
    return http::Principal{token->id, token->name, *role};
  }

  inventory::DatabasePtr db_;
  std::shared_ptr<TokenCache> cache_;
};

class DatabaseAuditSink final : public http::AuditSink {
 public:
  explicit DatabaseAuditSink(inventory::DatabasePtr db) : db_(std::move(db)) {}

  void record(const http::AuditRecord& r) override {
    inventory::AuditEntry e;
    if (r.principal) {
      e.token_id = r.principal->token_id;
      e.actor = r.principal->name;
      e.role = std::string(http::toString(r.principal->role));
    } else {
      e.actor = "anonymous";
    }
    e.method = std::string(http::toString(r.method));
    e.path = r.path;
    e.action = r.action;
    e.request_id = r.request_id;
    e.status = r.status;
    e.outcome = r.outcome;
    if (auto ok = inventory::appendAudit(*db_, e); !ok) {
      // Losing an audit record must be loud: operators alert on this line.
      spdlog::error("audit record lost for request {}: {}", r.request_id, ok.error().message);
    }
  }

 private:
  inventory::DatabasePtr db_;
};

}  // namespace

std::shared_ptr<http::Authenticator> makeAuthenticator(inventory::DatabasePtr db,
                                                       std::shared_ptr<TokenCache> cache) {
  return std::make_shared<DatabaseAuthenticator>(std::move(db), std::move(cache));
}

std::shared_ptr<http::AuditSink> makeAuditSink(inventory::DatabasePtr db) {
  return std::make_shared<DatabaseAuditSink>(std::move(db));
}

common::Result<IssuedToken> issueToken(inventory::Database& db, const std::string& name,
                                       const std::string& role) {
  PROV_TRY(http::parseRole(role));
  std::string secret = newSecretToken(kTokenPrefix);
  PROV_ASSIGN(auto token, inventory::createToken(db, name, role, common::sha256Hex(secret)));
  return IssuedToken{std::move(token), std::move(secret)};
}

}  // namespace provisioner::api
