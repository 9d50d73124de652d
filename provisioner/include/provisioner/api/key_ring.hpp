// The image signing keys the service trusts now; replaced whole on reload (SIGHUP), so a key can be
// added or withdrawn without a restart while registrations in flight keep the set they started
// with.
#pragma once

#include <memory>
#include <mutex>
#include <utility>

#include "images/signing.hpp"

namespace provisioner::api {

class KeyRing {
 public:
  explicit KeyRing(images::TrustedKeys keys = {})
      : keys_(std::make_shared<const images::TrustedKeys>(std::move(keys))) {}

  std::shared_ptr<const images::TrustedKeys> current() const {
    std::lock_guard lock(mutex_);
    return keys_;
  }
  void replace(images::TrustedKeys keys) {
    auto fresh = std::make_shared<const images::TrustedKeys>(std::move(keys));
    std::lock_guard lock(mutex_);
    keys_ = std::move(fresh);
  }

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<const images::TrustedKeys> keys_;
};

}  // namespace provisioner::api
