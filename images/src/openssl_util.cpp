#include "openssl_util.hpp"

#include <fstream>
#include <iterator>
#include <system_error>

namespace images::detail {

Bio memoryBio(std::string_view text) {
  return Bio(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
}

std::string bioContents(BIO* bio) {
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio, &data);
  if (size <= 0 || data == nullptr) return {};
  return std::string(data, static_cast<std::size_t>(size));
}

common::Result<std::string> readSmallFile(const std::filesystem::path& file, std::size_t max_bytes,
                                          const std::string& code) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  if (ec) {
    return common::invalidArgument(code, "cannot read " + file.string() + ": " + ec.message(),
                                   file.string());
  }
  if (size > max_bytes) {
    return common::invalidArgument(code, file.string() + " is larger than expected", file.string());
  }
  std::ifstream in(file, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) {
    return common::invalidArgument(code, "cannot read " + file.string(), file.string());
  }
  return text;
}

}  // namespace images::detail
