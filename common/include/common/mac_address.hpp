// MAC address validation and normalisation to the one form the inventory stores.
#pragma once

#include <string>
#include <string_view>

#include "common/result.hpp"

namespace common {

// Accepts "aa:bb:cc:dd:ee:ff", "AA-BB-CC-DD-EE-FF", "aabb.ccdd.eeff" and "aabbccddeeff" (any case,
// surrounding whitespace ignored) and returns the lower-case colon form "aa:bb:cc:dd:ee:ff".
// Anything else is an invalid_argument error with code "invalid_mac" (no field: the caller knows
// which input it was and adds it with withField()).
Result<std::string> normalizeMac(std::string_view text);

}  // namespace common
