#ifndef CPPHTTPLIB_OPENSSL_SUPPORT
#define CPPHTTPLIB_OPENSSL_SUPPORT  // https:// service URLs
#endif
#include "runtime/service_transport.hpp"

#include <httplib.h>

#include <algorithm>
#include <charconv>
#include <regex>
#include <thread>

#include <nlohmann/json.hpp>

namespace agent::transport {

using common::Error;
using common::ErrorKind;
using common::Result;

namespace {

bool isRetryable(int status) {
  return status == 429 || status >= 500;
}

ErrorKind kindForStatus(int status) {
  switch (status) {
    case 401:
      return ErrorKind::kUnauthenticated;
    case 403:
      return ErrorKind::kPermissionDenied;
    case 404:
      return ErrorKind::kNotFound;
    case 409:
      return ErrorKind::kConflict;
    case 413:
      return ErrorKind::kPayloadTooLarge;
    case 429:
    case 502:
    case 503:
    case 504:
      return ErrorKind::kUnavailable;
    default:
      return status >= 500 ? ErrorKind::kInternal : ErrorKind::kInvalidArgument;
  }
}

std::string stringMember(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return "";
  auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return "";
  return it->get<std::string>().substr(0, 512);
}

// Retry-After in seconds (the HTTP-date form is not worth parsing for an agent).
std::chrono::milliseconds retryAfter(const httplib::Response& response) {
  std::string value = response.get_header_value("Retry-After");
  int seconds = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (ec != std::errc() || end != value.data() + value.size() || seconds < 0) return {};
  return std::chrono::seconds(seconds);
}

std::string describe(httplib::Error error) {
  switch (error) {
    case httplib::Error::Connection:
      return "connection refused or host unreachable";
    case httplib::Error::ConnectionTimeout:
      return "connection timed out";
    case httplib::Error::Read:
      return "no answer (connection closed or read timed out)";
    case httplib::Error::Write:
      return "sending the request failed";
    case httplib::Error::SSLConnection:
      return "TLS handshake failed";
    case httplib::Error::SSLServerVerification:
      return "the service's TLS certificate is not trusted (see --ca-file)";
    case httplib::Error::SSLLoadingCerts:
      return "cannot load the CA certificates";
    default:
      return httplib::to_string(error);
  }
}

// Trying again cannot fix these: the certificate will not become trusted by itself.
bool isTlsTrustError(httplib::Error error) {
  return error == httplib::Error::SSLServerVerification || error == httplib::Error::SSLLoadingCerts;
}

}  // namespace

Result<Endpoint> parseBaseUrl(const std::string& url) {
  static const std::regex kUrl(
      R"(^(https?)://([A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?(/[^?#\s]*)?$)");
  std::smatch m;
  if (!std::regex_match(url, m, kUrl)) {
    return common::invalidArgument("invalid_service_url",
                                   "the service URL must be http(s)://HOST[:PORT][/PATH]",
                                   "service_url");
  }
  Endpoint endpoint{m[1].str() + "://" + m[2].str() + m[3].str(), m[4].str()};
  while (endpoint.path_prefix.ends_with('/')) endpoint.path_prefix.pop_back();
  return endpoint;
}

Error errorFromReply(const Reply& reply, const std::string& what) {
  auto body = nlohmann::json::parse(reply.body, nullptr, /*allow_exceptions=*/false);
  std::string code = stringMember(body, "code");
  std::string detail = stringMember(body, "detail");
  if (code.empty()) code = "http_" + std::to_string(reply.status);
  std::string message = what + " was refused: HTTP " + std::to_string(reply.status) + " " + code;
  if (!detail.empty()) message += " (" + detail + ")";
  return Error{
      kindForStatus(reply.status), code, message, {}, "HTTP " + std::to_string(reply.status)};
}

Transport::Transport(ServiceClientOptions options, Endpoint endpoint)
    : options_(std::move(options)),
      endpoint_(std::move(endpoint)),
      client_(std::make_unique<httplib::Client>(endpoint_.scheme_host_port)),
      jitter_(options_.jitter_seed != 0 ? options_.jitter_seed : std::random_device{}()) {
  using std::chrono::duration_cast;
  using std::chrono::microseconds;
  auto connect = duration_cast<microseconds>(options_.connect_timeout).count();
  auto read = duration_cast<microseconds>(options_.read_timeout).count();
  client_->set_connection_timeout(connect / 1000000, connect % 1000000);
  client_->set_read_timeout(read / 1000000, read % 1000000);
  client_->set_write_timeout(read / 1000000, read % 1000000);
  // A connection per request: an agent talks seldom (register, one report per test, the
  // result), and an idle kept-alive connection would hold one of the service's HTTP workers
  // for thousands of agents at once.
  client_->set_keep_alive(false);
  if (!options_.ca_file.empty()) client_->set_ca_cert_path(options_.ca_file.c_str());
}

Transport::~Transport() = default;

void Transport::wait(int attempt, int max_attempts, const std::string& why,
                     std::chrono::milliseconds at_least) {
  double unit = std::uniform_real_distribution<double>(0.0, 1.0)(jitter_);
  auto delay =
      std::max(backoffDelay(attempt, options_.retry, unit), std::min(at_least, options_.retry.cap));
  if (options_.on_retry) {
    options_.on_retry(why + "; attempt " + std::to_string(attempt + 1) + " of " +
                      std::to_string(max_attempts) + " in " + std::to_string(delay.count()) +
                      " ms");
  }
  if (options_.sleeper) {
    options_.sleeper(delay);
  } else {
    std::this_thread::sleep_for(delay);
  }
}

Result<Reply> Transport::exchange(const std::string& method, const std::string& path,
                                  const std::string& body, const std::string& token,
                                  int max_attempts, const std::string& idempotency_key) {
  std::string what = method + " " + path;
  if (max_attempts <= 0) max_attempts = std::max(1, options_.retry.max_attempts);
  std::string last_failure;
  for (int attempt = 1; attempt <= max_attempts; ++attempt) {
    httplib::Request request;
    request.method = method;
    request.path = endpoint_.path_prefix + path;
    request.set_header("Accept", "application/json, application/problem+json");
    request.set_header("Authorization", "Bearer " + token);
    if (!idempotency_key.empty()) request.set_header("Idempotency-Key", idempotency_key);
    if (!body.empty()) {
      request.body = body;
      request.set_header("Content-Type", "application/json");
    }
    auto response = client_->send(request);
    std::chrono::milliseconds at_least{0};
    if (!response) {
      last_failure = what + ": " + describe(response.error());
      if (isTlsTrustError(response.error())) {
        return Error{
            ErrorKind::kUnavailable, "tls_untrusted", last_failure, {}, endpoint_.scheme_host_port};
      }
    } else if (!isRetryable(response->status)) {
      return Reply{response->status, response->body, attempt};
    } else {
      last_failure = what + ": HTTP " + std::to_string(response->status);
      at_least = retryAfter(*response);
    }
    if (attempt < max_attempts) wait(attempt, max_attempts, last_failure, at_least);
  }
  return Error{ErrorKind::kUnavailable,
               "service_unreachable",
               "gave up after " + std::to_string(max_attempts) + " attempts: " + last_failure,
               {},
               endpoint_.scheme_host_port};
}

}  // namespace agent::transport

namespace agent {

std::chrono::milliseconds backoffDelay(int attempt, const RetryPolicy& policy, double unit_random) {
  double ceiling = static_cast<double>(policy.cap.count());
  double full = static_cast<double>(policy.base.count());
  for (int i = 1; i < attempt && full < ceiling; ++i) full *= 2;
  full = std::min(full, ceiling);
  double jittered = full / 2 + (full / 2) * std::clamp(unit_random, 0.0, 1.0);
  return std::chrono::milliseconds(static_cast<std::int64_t>(jittered));
}

}  // namespace agent
