#ifndef CPPHTTPLIB_OPENSSL_SUPPORT
#define CPPHTTPLIB_OPENSSL_SUPPORT  // https:// boot services
#endif
#include "host/http_fetch.hpp"
#include "common/hex.hpp"

#include <httplib.h>
#include <openssl/evp.h>

#include <memory>

namespace sim::host {
namespace {

constexpr int kConnectTimeoutSeconds = 10;
constexpr int kReadTimeoutSeconds = 60;

struct SplitUrl {
  std::string origin;  // scheme://host[:port]
  std::string target;  // /path?query
};

common::Result<SplitUrl> splitUrl(const std::string& url) {
  const bool http = url.rfind("http://", 0) == 0;
  const bool https = url.rfind("https://", 0) == 0;
  if (!http && !https) {
    return common::invalidArgument("invalid_boot_url", "not an http(s) URL: " + url);
  }
  const std::size_t hostStart = http ? 7 : 8;
  const std::size_t slash = url.find('/', hostStart);
  if (slash == hostStart) return common::invalidArgument("invalid_boot_url", "no host in " + url);
  if (slash == std::string::npos) return SplitUrl{url, "/"};
  return SplitUrl{url.substr(0, slash), url.substr(slash)};
}

class Sha256 {
 public:
  Sha256() : context_(EVP_MD_CTX_new(), EVP_MD_CTX_free) {
    EVP_DigestInit_ex(context_.get(), EVP_sha256(), nullptr);
  }
  void update(const char* data, std::size_t size) { EVP_DigestUpdate(context_.get(), data, size); }
  std::string hex() {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    EVP_DigestFinal_ex(context_.get(), digest, &length);
    return common::hexOf(digest, length);
  }

 private:
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context_;
};

common::Error fetchFailed(const std::string& url, const std::string& why) {
  return common::unavailable("boot_fetch_failed", "GET " + url + ": " + why);
}

}  // namespace

common::Result<Fetched> httpGet(const std::string& url, const FetchOptions& options) {
  PROV_ASSIGN(SplitUrl split, splitUrl(url));
  httplib::Client client(split.origin);
  client.set_connection_timeout(kConnectTimeoutSeconds);
  client.set_read_timeout(kReadTimeoutSeconds);
  if (!options.caFile.empty()) client.set_ca_cert_path(options.caFile.c_str());
  int status = 0;
  bool tooLarge = false;
  bool aborted = false;
  Fetched fetched;
  Sha256 hash;
  auto onResponse = [&status](const httplib::Response& response) {
    status = response.status;
    return response.status == 200;
  };
  auto onData = [&](const char* data, std::size_t size) {
    if (options.keepGoing && !options.keepGoing()) {
      aborted = true;
      return false;
    }
    fetched.size += size;
    hash.update(data, size);
    if (options.keepBodyLimit == 0) return true;
    if (fetched.body.size() + size > options.keepBodyLimit) {
      tooLarge = true;
      return false;
    }
    fetched.body.append(data, size);
    return true;
  };
  auto result = client.Get(split.target, onResponse, onData);
  if (aborted) return common::unavailable("boot_aborted", "GET " + url + ": the host rebooted");
  if (tooLarge) return fetchFailed(url, "the answer is larger than expected");
  if (status != 0 && status != 200) return fetchFailed(url, "HTTP " + std::to_string(status));
  if (!result) return fetchFailed(url, httplib::to_string(result.error()));
  fetched.sha256 = hash.hex();
  return fetched;
}

}  // namespace sim::host
