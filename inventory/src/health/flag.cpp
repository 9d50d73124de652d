#include "inventory/health/flag.hpp"

#include <array>
#include <utility>

namespace inventory::health {
namespace {

constexpr std::array<std::pair<FlagAction, std::string_view>, 5> kActions{{
    {FlagAction::kWatch, "watch"},
    {FlagAction::kResetAtIdle, "reset_at_idle"},
    {FlagAction::kRerunBurnIn, "rerun_burn_in"},
    {FlagAction::kDrain, "drain"},
    {FlagAction::kRmaCandidate, "rma_candidate"},
}};

constexpr std::array<std::pair<FlagSeverity, std::string_view>, 3> kSeverities{{
    {FlagSeverity::kInfo, "info"},
    {FlagSeverity::kWarning, "warning"},
    {FlagSeverity::kCritical, "critical"},
}};

template <class E, std::size_t N>
std::string_view nameIn(const std::array<std::pair<E, std::string_view>, N>& table, E value) {
  for (const auto& [v, name] : table) {
    if (v == value) return name;
  }
  return "unknown";
}

template <class E, std::size_t N>
std::optional<E> valueIn(const std::array<std::pair<E, std::string_view>, N>& table,
                         std::string_view name) {
  for (const auto& [v, n] : table) {
    if (n == name) return v;
  }
  return std::nullopt;
}

}  // namespace

std::string_view toString(FlagAction a) {
  return nameIn(kActions, a);
}
std::optional<FlagAction> flagActionNamed(std::string_view name) {
  return valueIn(kActions, name);
}
std::string_view toString(FlagSeverity s) {
  return nameIn(kSeverities, s);
}
std::optional<FlagSeverity> flagSeverityNamed(std::string_view name) {
  return valueIn(kSeverities, name);
}

}  // namespace inventory::health
