// One HTTP attempt as a libcurl easy handle: request options in, Response or failure out.
#pragma once

#include <curl/curl.h>

#include <string>

#include "common/result.hpp"
#include "redfish/client.hpp"
#include "transport/retry_policy.hpp"

namespace redfish::detail {

class TlsPin;

struct AttemptSetup {
  const Request* request = nullptr;        // must outlive the attempt
  std::string url;                         // resolved absolute URL
  std::string token;                       // X-Auth-Token, or empty
  const std::string* basicUser = nullptr;  // basic auth when set
  const std::string* basicPassword = nullptr;
  TlsPin* tls = nullptr;
  long timeoutMs = 30000;
  long connectTimeoutMs = 10000;
  std::size_t maxBodyBytes = 16u << 20;
};

// What a finished attempt produced.
struct AttemptOutcome {
  AttemptFailure failure = AttemptFailure::kNone;
  CURLcode code = CURLE_OK;
  Response response;     // valid when failure == kNone
  std::string curlText;  // libcurl's error buffer, for messages
  long connectsOpened = 0;
  bool bodyTooLarge = false;
};

class EasyAttempt {
 public:
  EasyAttempt() = default;
  ~EasyAttempt();
  EasyAttempt(const EasyAttempt&) = delete;
  EasyAttempt& operator=(const EasyAttempt&) = delete;

  // Builds the easy handle; an error (e.g. a file part that cannot be read) means nothing started.
  common::Result<void> prepare(const AttemptSetup& setup);
  CURL* handle() const { return easy_; }
  AttemptOutcome finish(CURLcode code);

 private:
  static size_t onBody(char* data, size_t size, size_t count, void* self);
  static size_t onHeader(char* data, size_t size, size_t count, void* self);
  common::Result<void> attachBody(const Request& request);
  common::Result<void> attachMultipart(const Request& request);

  CURL* easy_ = nullptr;
  curl_slist* headers_ = nullptr;
  curl_mime* mime_ = nullptr;
  std::string url_;
  Response response_;
  std::size_t maxBodyBytes_ = 0;
  bool bodyTooLarge_ = false;
  char errorText_[CURL_ERROR_SIZE] = {};
};

}  // namespace redfish::detail
