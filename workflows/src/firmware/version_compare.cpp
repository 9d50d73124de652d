#include "workflows/firmware/version_compare.hpp"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

namespace workflows::firmware {
namespace {

bool isSeparator(char c) {
  return c == '.' || c == '-' || c == '_' || c == ' ';
}
bool isDigit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

std::vector<std::string_view> partsOf(std::string_view version) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= version.size(); ++i) {
    if (i == version.size() || isSeparator(version[i])) {
      parts.push_back(version.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}

// The run of the same class (digits or not) starting at `at`.
std::string_view runAt(std::string_view part, std::size_t at) {
  std::size_t end = at;
  const bool digits = isDigit(part[at]);
  while (end < part.size() && isDigit(part[end]) == digits) ++end;
  return part.substr(at, end - at);
}

int compareNumbers(std::string_view a, std::string_view b) {
  while (a.size() > 1 && a.front() == '0') a.remove_prefix(1);
  while (b.size() > 1 && b.front() == '0') b.remove_prefix(1);
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  const int text = a.compare(b);
  return text < 0 ? -1 : (text > 0 ? 1 : 0);
}

int compareParts(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const auto ra = runAt(a, i);
    const auto rb = runAt(b, j);
    int order = 0;
    if (isDigit(ra.front()) && isDigit(rb.front())) {
      order = compareNumbers(ra, rb);
    } else {
      const int text = ra.compare(rb);
      order = text < 0 ? -1 : (text > 0 ? 1 : 0);
    }
    if (order != 0) return order;
    i += ra.size();
    j += rb.size();
  }
  if (i < a.size()) return 1;
  if (j < b.size()) return -1;
  return 0;
}

// An absent part equals "0" or "" (so "1.2" == "1.2.0").
bool isZeroOrEmpty(std::string_view part) {
  for (char c : part) {
    if (c != '0') return false;
  }
  return true;
}

}  // namespace

int compareFirmwareVersions(std::string_view a, std::string_view b) {
  const auto pa = partsOf(a);
  const auto pb = partsOf(b);
  const std::size_t n = std::max(pa.size(), pb.size());
  for (std::size_t k = 0; k < n; ++k) {
    const std::string_view x = k < pa.size() ? pa[k] : std::string_view{};
    const std::string_view y = k < pb.size() ? pb[k] : std::string_view{};
    if (x.empty() && isZeroOrEmpty(y)) continue;
    if (y.empty() && isZeroOrEmpty(x)) continue;
    const int order = compareParts(x, y);
    if (order != 0) return order;
  }
  return 0;
}

}  // namespace workflows::firmware
