#include "model/personalise.hpp"

#include <cctype>

#include <nlohmann/json.hpp>

namespace sim::model {
namespace {

std::uint64_t fnv1a(std::uint64_t hash, std::string_view text) {
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

// splitmix64: a well-mixed stream of pseudo-random words from one state.
std::uint64_t next(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

bool isHex(char c) {
  return std::isxdigit(static_cast<unsigned char>(c)) != 0;
}

char randomHex(std::uint64_t& state, bool upper) {
  const char* digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  return digits[next(state) % 16];
}

}  // namespace

bool looksLikeMac(const std::string& value) {
  if (value.size() != 17) return false;
  for (std::size_t i = 0; i < value.size(); ++i) {
    bool separator = i % 3 == 2;
    if (separator ? (value[i] != ':' && value[i] != '-') : !isHex(value[i])) return false;
  }
  return true;
}

bool looksLikeUuid(const std::string& value) {
  if (value.size() != 36) return false;
  for (std::size_t i = 0; i < value.size(); ++i) {
    bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? value[i] != '-' : !isHex(value[i])) return false;
  }
  return true;
}

Personaliser::Personaliser(std::uint64_t seed, std::string id, bool enabled)
    : seed_(seed), id_(std::move(id)), enabled_(enabled) {}

std::uint64_t Personaliser::streamFor(std::string_view kind, const std::string& original) const {
  std::uint64_t hash = 0xcbf29ce484222325ULL ^ seed_;
  hash = fnv1a(hash, id_);
  hash = fnv1a(hash, std::string_view("\0", 1));
  hash = fnv1a(hash, kind);
  return fnv1a(hash, original);
}

std::string Personaliser::serial(const std::string& original) const {
  bool hasDigit = false;
  for (char c : original) hasDigit = hasDigit || std::isdigit(static_cast<unsigned char>(c));
  if (!enabled_ || !hasDigit) return original;  // "N/A", "Unknown": not a serial
  auto state = streamFor("serial", original);
  // Long serials keep a two-character vendor prefix ("CN", "16"); short ones change entirely.
  std::size_t keep = original.size() >= 10 ? 2 : 0;
  std::string out = original;
  for (std::size_t i = keep; i < out.size(); ++i) {
    auto c = static_cast<unsigned char>(out[i]);
    if (std::isdigit(c)) out[i] = static_cast<char>('0' + next(state) % 10);
    if (std::isupper(c)) out[i] = static_cast<char>('A' + next(state) % 26);
    if (std::islower(c)) out[i] = static_cast<char>('a' + next(state) % 26);
  }
  return out;
}

std::string Personaliser::uuid(const std::string& original) const {
  if (!enabled_ || !looksLikeUuid(original)) return original;
  auto state = streamFor("uuid", original);
  std::string out = original;
  for (auto& c : out) {
    if (isHex(c)) c = randomHex(state, std::isupper(static_cast<unsigned char>(c)) != 0);
  }
  return out;
}

std::string Personaliser::mac(const std::string& original) const {
  if (!enabled_ || !looksLikeMac(original) || original == "00:00:00:00:00:00") return original;
  auto state = streamFor("mac", original);
  bool upper = false;
  for (char c : original) upper = upper || std::isupper(static_cast<unsigned char>(c));
  std::string out = original;
  // The first octet stays (vendor look, unicast/global bits); 40 random bits keep a large fleet
  // free of duplicates.
  for (std::size_t i = 3; i < out.size(); ++i) {
    if (isHex(out[i])) out[i] = randomHex(state, upper);
  }
  return out;
}

void Personaliser::apply(nlohmann::json& body) const {
  if (!enabled_) return;
  if (body.is_array()) {
    for (auto& item : body) {
      if (item.is_string() && looksLikeMac(item.get_ref<const std::string&>())) {
        item = mac(item.get<std::string>());
      } else {
        apply(item);
      }
    }
    return;
  }
  if (!body.is_object()) return;
  for (auto& [key, value] : body.items()) {
    if (!value.is_string()) {
      apply(value);
      continue;
    }
    const auto& text = value.get_ref<const std::string&>();
    if (key == "SerialNumber") {
      value = serial(text);
    } else if (looksLikeUuid(text) && (key == "UUID" || key == "ServiceEntryPointUUID")) {
      value = uuid(text);
    } else if (looksLikeMac(text)) {
      value = mac(text);
    }
  }
}

}  // namespace sim::model
