#include "transport/easy_attempt.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "transport/tls_pin.hpp"
#include "transport/text.hpp"

namespace redfish::detail {
namespace {

bool hasHeader(const HeaderList& headers, std::string_view lowerName) {
  return std::any_of(headers.begin(), headers.end(),
                     [&](const auto& header) { return lowered(header.first) == lowerName; });
}

// Header injection guard: a CR or LF in a caller's header would start another header.
bool safeHeaderText(std::string_view text) {
  return text.find_first_of("\r\n") == std::string_view::npos;
}

AttemptFailure classify(CURLcode code, long requestBytes) {
  switch (code) {
    case CURLE_OK:
      return AttemptFailure::kNone;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
      return AttemptFailure::kConnect;
    case CURLE_OPERATION_TIMEDOUT:
      return requestBytes > 0 ? AttemptFailure::kTimeout : AttemptFailure::kConnect;
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
      return requestBytes > 0 ? AttemptFailure::kBrokenAfterSend : AttemptFailure::kConnect;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
      return AttemptFailure::kTls;
    default:
      return AttemptFailure::kOther;
  }
}

}  // namespace

EasyAttempt::~EasyAttempt() {
  if (easy_ != nullptr) curl_easy_cleanup(easy_);
  if (mime_ != nullptr) curl_mime_free(mime_);
  if (headers_ != nullptr) curl_slist_free_all(headers_);
}

common::Result<void> EasyAttempt::prepare(const AttemptSetup& setup) {
  const Request& request = *setup.request;
  easy_ = curl_easy_init();
  if (easy_ == nullptr) return common::internalError("curl_easy_init failed");
  url_ = setup.url;
  maxBodyBytes_ = setup.maxBodyBytes;
  response_.url = url_;
  curl_easy_setopt(easy_, CURLOPT_URL, url_.c_str());
  curl_easy_setopt(easy_, CURLOPT_PRIVATE, this);
  curl_easy_setopt(easy_, CURLOPT_ERRORBUFFER, errorText_);
  curl_easy_setopt(easy_, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy_, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  curl_easy_setopt(easy_, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(easy_, CURLOPT_FOLLOWLOCATION, 0L);  // 3xx is the caller's Response
  curl_easy_setopt(easy_, CURLOPT_TIMEOUT_MS, setup.timeoutMs);
  curl_easy_setopt(easy_, CURLOPT_CONNECTTIMEOUT_MS, setup.connectTimeoutMs);
  curl_easy_setopt(easy_, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(maxBodyBytes_));
  curl_easy_setopt(easy_, CURLOPT_WRITEFUNCTION, &EasyAttempt::onBody);
  curl_easy_setopt(easy_, CURLOPT_WRITEDATA, this);
  curl_easy_setopt(easy_, CURLOPT_HEADERFUNCTION, &EasyAttempt::onHeader);
  curl_easy_setopt(easy_, CURLOPT_HEADERDATA, this);
  if (setup.tls != nullptr) setup.tls->configure(easy_);
  if (setup.basicUser != nullptr) {
    curl_easy_setopt(easy_, CURLOPT_HTTPAUTH, static_cast<long>(CURLAUTH_BASIC));
    curl_easy_setopt(easy_, CURLOPT_USERNAME, setup.basicUser->c_str());
    curl_easy_setopt(easy_, CURLOPT_PASSWORD, setup.basicPassword->c_str());
  }

  std::vector<std::string> lines = {"Accept: application/json", "OData-Version: 4.0", "Expect:"};
  if (!setup.token.empty()) lines.push_back("X-Auth-Token: " + setup.token);
  if (!request.body.empty() && request.multipart.empty() &&
      !hasHeader(request.headers, "content-type")) {
    lines.push_back("Content-Type: application/json");
  }
  for (const auto& [name, value] : request.headers) {
    if (!safeHeaderText(name) || !safeHeaderText(value) || name.empty()) {
      return common::invalidArgument("invalid_header", "request header contains CR/LF", name);
    }
    lines.push_back(name + ": " + value);
  }
  for (const std::string& line : lines) headers_ = curl_slist_append(headers_, line.c_str());
  curl_easy_setopt(easy_, CURLOPT_HTTPHEADER, headers_);
  return request.multipart.empty() ? attachBody(request) : attachMultipart(request);
}

common::Result<void> EasyAttempt::attachBody(const Request& request) {
  switch (request.method) {
    case Method::kGet:
      curl_easy_setopt(easy_, CURLOPT_HTTPGET, 1L);
      return common::success();
    case Method::kDelete:
      curl_easy_setopt(easy_, CURLOPT_CUSTOMREQUEST, "DELETE");
      return common::success();
    case Method::kPost:
    case Method::kPatch:
    case Method::kPut:
      break;
  }
  curl_easy_setopt(easy_, CURLOPT_POST, 1L);
  curl_easy_setopt(easy_, CURLOPT_POSTFIELDSIZE_LARGE,
                   static_cast<curl_off_t>(request.body.size()));
  curl_easy_setopt(easy_, CURLOPT_POSTFIELDS, request.body.data());
  if (request.method != Method::kPost) {
    curl_easy_setopt(easy_, CURLOPT_CUSTOMREQUEST, std::string(toString(request.method)).c_str());
  }
  return common::success();
}

common::Result<void> EasyAttempt::attachMultipart(const Request& request) {
  mime_ = curl_mime_init(easy_);
  for (const MultipartPart& part : request.multipart) {
    curl_mimepart* field = curl_mime_addpart(mime_);
    curl_mime_name(field, part.name.c_str());
    if (!part.contentType.empty()) curl_mime_type(field, part.contentType.c_str());
    if (part.filePath.empty()) {
      curl_mime_data(field, part.data.data(), part.data.size());
    } else {
      std::error_code error;
      if (!std::filesystem::is_regular_file(part.filePath, error)) {
        return common::invalidArgument("unreadable_file",
                                       "multipart file part is not a readable file", part.name);
      }
      // Streams from disk while sending; filedata also sets a filename, overridden below.
      if (curl_mime_filedata(field, part.filePath.c_str()) != CURLE_OK) {
        return common::invalidArgument("unreadable_file", "multipart file part cannot be read",
                                       part.name);
      }
    }
    if (!part.fileName.empty()) curl_mime_filename(field, part.fileName.c_str());
  }
  curl_easy_setopt(easy_, CURLOPT_MIMEPOST, mime_);
  return common::success();
}

size_t EasyAttempt::onBody(char* data, size_t size, size_t count, void* self) {
  auto* attempt = static_cast<EasyAttempt*>(self);
  size_t bytes = size * count;
  if (attempt->response_.body.size() + bytes > attempt->maxBodyBytes_) {
    attempt->bodyTooLarge_ = true;
    return 0;  // aborts the transfer with CURLE_WRITE_ERROR
  }
  attempt->response_.body.append(data, bytes);
  return bytes;
}

size_t EasyAttempt::onHeader(char* data, size_t size, size_t count, void* self) {
  auto* attempt = static_cast<EasyAttempt*>(self);
  size_t bytes = size * count;
  std::string_view line(data, bytes);
  if (line.rfind("HTTP/", 0) == 0) {
    attempt->response_.headers.clear();  // a new response (after 100 Continue): start over
    return bytes;
  }
  auto colon = line.find(':');
  if (colon == std::string_view::npos || colon == 0) return bytes;
  attempt->response_.headers.emplace_back(lowered(trimmed(line.substr(0, colon))),
                                          std::string(trimmed(line.substr(colon + 1))));
  return bytes;
}

AttemptOutcome EasyAttempt::finish(CURLcode code) {
  AttemptOutcome outcome;
  outcome.code = code;
  long requestBytes = 0;
  curl_easy_getinfo(easy_, CURLINFO_REQUEST_SIZE, &requestBytes);
  curl_easy_getinfo(easy_, CURLINFO_NUM_CONNECTS, &outcome.connectsOpened);
  outcome.failure = classify(code, requestBytes);
  if (bodyTooLarge_ || code == CURLE_FILESIZE_EXCEEDED) {
    outcome.failure = AttemptFailure::kOther;
    outcome.bodyTooLarge = true;
    outcome.curlText = "body larger than " + std::to_string(maxBodyBytes_) + " bytes";
    return outcome;
  }
  outcome.curlText = errorText_[0] != '\0' ? errorText_ : curl_easy_strerror(code);
  if (code == CURLE_OK) {
    curl_easy_getinfo(easy_, CURLINFO_RESPONSE_CODE, &outcome.response.status);
    char* effective = nullptr;
    curl_easy_getinfo(easy_, CURLINFO_EFFECTIVE_URL, &effective);
    response_.url = effective != nullptr ? effective : url_;
    response_.status = outcome.response.status;
    outcome.response = std::move(response_);
  }
  return outcome;
}

}  // namespace redfish::detail
