// Per-BMC identity: serials, UUIDs and MACs rewritten deterministically from (seed, id), keeping
// each value's length, case and separators so it still looks like the vendor's.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace sim::model {

class Personaliser {
 public:
  Personaliser(std::uint64_t seed, std::string id, bool enabled);

  // The same original value always maps to the same new one (so a serial repeated in the system
  // and the chassis stays consistent); different ids give different values.
  std::string serial(const std::string& original) const;
  std::string uuid(const std::string& original) const;
  std::string mac(const std::string& original) const;
  // Rewrites SerialNumber, UUID and every MAC-valued string in `body`, recursively.
  void apply(nlohmann::json& body) const;
  bool enabled() const { return enabled_; }

 private:
  std::uint64_t streamFor(std::string_view kind, const std::string& original) const;
  std::uint64_t seed_;
  std::string id_;
  bool enabled_;
};

bool looksLikeMac(const std::string& value);
bool looksLikeUuid(const std::string& value);

}  // namespace sim::model
