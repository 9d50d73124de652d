// Lower-case hexadecimal, the one encoding of digests, fingerprints and signatures in text.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace common {

std::string hexOf(std::string_view bytes);
std::string hexOf(const unsigned char* bytes, std::size_t length);

// The bytes of an even-length hex string (either case); nullopt when it is not one.
std::optional<std::string> bytesFromHex(std::string_view hex);

}  // namespace common
