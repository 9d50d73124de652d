// Test doubles for the HTTP layer: a token table authenticator and an audit sink that records.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "provisioner/http/server.hpp"

namespace testing {

// Knows a fixed set of tokens; "revoked" answers token_revoked like the real store would.
class FakeAuthenticator : public provisioner::http::Authenticator {
 public:
  void add(std::string token, provisioner::http::Principal principal) {
    std::lock_guard lock(mutex_);
    tokens_[std::move(token)] = std::move(principal);
  }

  common::Result<provisioner::http::Principal> authenticate(std::string_view token) override {
    std::lock_guard lock(mutex_);
    if (token == "revoked") {
      return common::Error{
          common::ErrorKind::kUnauthenticated, "token_revoked", "the token was revoked", {}, {}};
    }
    if (token == "db-down") return common::unavailable("database_unavailable", "no database");
    auto it = tokens_.find(std::string(token));
    if (it == tokens_.end()) return common::unauthenticated("unknown token");
    return it->second;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, provisioner::http::Principal, std::less<>> tokens_;
};

class RecordingAuditSink : public provisioner::http::AuditSink {
 public:
  void record(const provisioner::http::AuditRecord& record) override {
    std::lock_guard lock(mutex_);
    records_.push_back(record);
  }
  std::vector<provisioner::http::AuditRecord> records() {
    std::lock_guard lock(mutex_);
    return records_;
  }

 private:
  std::mutex mutex_;
  std::vector<provisioner::http::AuditRecord> records_;
};

}  // namespace testing
