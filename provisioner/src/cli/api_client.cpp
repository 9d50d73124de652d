#include "provisioner/cli/api_client.hpp"

#include <httplib.h>

#include <filesystem>
#include <fstream>

#include "provisioner/cli/ctl.hpp"
#include "provisioner/cli/errors.hpp"
#include "provisioner/cli/json_fields.hpp"

namespace provisioner::cli {
namespace {

using common::Error;
using common::ErrorKind;
using common::Result;

constexpr const char* kJsonType = "application/json";
// Errors come as problem+json; say so for servers that negotiate strictly.
constexpr const char* kAcceptJson = "application/json, application/problem+json";

ErrorKind kindForStatus(int status) {
  switch (status) {
    case 400:
      return ErrorKind::kInvalidArgument;
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
    case 415:
      return ErrorKind::kUnsupportedMediaType;
    case 503:
      return ErrorKind::kUnavailable;
    default:
      return status >= 500 ? ErrorKind::kInternal : ErrorKind::kInvalidArgument;
  }
}

// A non-2xx answer as an Error. problem+json gives code/detail/field; anything else (a proxy's
// HTML page) still names the status so the user knows where it came from.
Error errorFromResponse(const httplib::Response& res) {
  auto body = nlohmann::json::parse(res.body, nullptr, /*allow_exceptions=*/false);
  Error error{kindForStatus(res.status), text(body, "code"), text(body, "detail"),
              text(body, "field"), "HTTP " + std::to_string(res.status)};
  if (error.message.empty()) error.message = text(body, "title");
  if (error.message.empty()) error.message = "the server answered without a problem+json body";
  std::string requestId = text(body, "request_id");
  if (requestId.empty()) requestId = res.get_header_value("X-Request-Id");
  if (!requestId.empty()) error.detail += ", request " + requestId;
  return error;
}

std::string describeTransportError(httplib::Error error) {
  switch (error) {
    case httplib::Error::Connection:
      return "connection refused or host unreachable";
    case httplib::Error::ConnectionTimeout:
      return "connection timed out";
    case httplib::Error::Read:
      return "no answer (read failed or timed out)";
    case httplib::Error::Write:
      return "sending the request failed";
    case httplib::Error::SSLConnection:
      return "TLS handshake failed";
    case httplib::Error::SSLServerVerification:
      return "the server's TLS certificate is not trusted";
    case httplib::Error::SSLLoadingCerts:
      return "cannot load the CA certificates";
    default:
      return httplib::to_string(error);
  }
}

}  // namespace

struct ApiClient::Impl {
  explicit Impl(ClientSettings s)
      : settings(std::move(s)), client(settings.endpoint.schemeHostPort) {
    client.set_connection_timeout(settings.connectTimeout);
    client.set_read_timeout(settings.readTimeout);
    client.set_write_timeout(settings.readTimeout);
    client.set_bearer_token_auth(settings.token);
    client.set_keep_alive(true);  // --all pages over one connection
  }

  Result<ApiReply> send(httplib::Request request, bool expectJson) {
    request.path = settings.endpoint.pathPrefix + request.path;
    request.set_header("User-Agent", std::string("provisionerctl/") + kCtlVersion);
    return interpret(client.send(request), request.method, request.path, expectJson);
  }

  // Streams a file as the body of a PUT (artifacts are far larger than memory should hold).
  Result<ApiReply> putFile(const std::string& path, const std::string& file_path) {
    auto file = std::make_shared<std::ifstream>(file_path, std::ios::binary);
    std::error_code ec;
    const auto size = std::filesystem::file_size(file_path, ec);
    if (!*file || ec) {
      return common::fail(
          common::invalidArgument("file_unreadable", "cannot read " + file_path, file_path));
    }
    const std::string target = settings.endpoint.pathPrefix + path;
    httplib::Headers headers{{"Accept", kAcceptJson},
                             {"User-Agent", std::string("provisionerctl/") + kCtlVersion}};
    auto provider = [file](std::size_t offset, std::size_t length, httplib::DataSink& sink) {
      std::vector<char> buffer(std::min<std::size_t>(length, 1 << 20));
      file->seekg(static_cast<std::streamoff>(offset));
      file->read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      const auto got = static_cast<std::size_t>(file->gcount());
      return got > 0 && sink.write(buffer.data(), got);
    };
    return interpret(client.Put(target, headers, static_cast<std::size_t>(size), provider,
                                "application/octet-stream"),
                     "PUT", target, true);
  }

  Result<ApiReply> interpret(const httplib::Result& result, const std::string& method,
                             const std::string& path, bool expectJson) {
    if (!result) {
      return common::fail(Error{ErrorKind::kUnavailable,
                                kConnectionErrorCode,
                                "cannot reach the provisioner service at " +
                                    settings.endpoint.schemeHostPort + ": " +
                                    describeTransportError(result.error()),
                                {},
                                {}});
    }
    const httplib::Response& res = *result;
    if (res.status < 200 || res.status > 299) return common::fail(errorFromResponse(res));
    ApiReply reply{res.status, res.body, nullptr};
    if (!expectJson) return reply;
    reply.json = nlohmann::json::parse(res.body, nullptr, /*allow_exceptions=*/false);
    if (reply.json.is_discarded()) {
      return common::fail(
          Error{ErrorKind::kProtocol,
                kBadResponseCode,
                "the server answered " + method + " " + path + " with a body that is not JSON",
                {},
                "HTTP " + std::to_string(res.status)});
    }
    return reply;
  }

  ClientSettings settings;
  httplib::Client client;
};

namespace {

httplib::Request makeRequest(std::string method, std::string target, const std::string& accept) {
  httplib::Request request;
  request.method = std::move(method);
  request.path = std::move(target);
  request.set_header("Accept", accept);
  return request;
}

}  // namespace

ApiClient::ApiClient(ClientSettings settings)
    : impl_(std::make_unique<Impl>(std::move(settings))) {}
ApiClient::~ApiClient() = default;
ApiClient::ApiClient(ApiClient&&) noexcept = default;
ApiClient& ApiClient::operator=(ApiClient&&) noexcept = default;

std::string ApiClient::baseUrl() const {
  return impl_->settings.endpoint.schemeHostPort + impl_->settings.endpoint.pathPrefix;
}

Result<ApiReply> ApiClient::getJson(const std::string& path, const Query& query) {
  return impl_->send(makeRequest("GET", withQuery(path, query), kAcceptJson), true);
}

Result<ApiReply> ApiClient::getText(const std::string& path, const Query& query,
                                    const std::string& accept) {
  return impl_->send(makeRequest("GET", withQuery(path, query), accept), false);
}

Result<ApiReply> ApiClient::postJson(const std::string& path, const nlohmann::json& body) {
  auto request = makeRequest("POST", path, kAcceptJson);
  request.set_header("Content-Type", kJsonType);
  request.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return impl_->send(std::move(request), true);
}

Result<ApiReply> ApiClient::postBody(const std::string& path, const Query& query, std::string body,
                                     const std::string& contentType) {
  auto request = makeRequest("POST", withQuery(path, query), kAcceptJson);
  request.set_header("Content-Type", contentType);
  request.body = std::move(body);
  return impl_->send(std::move(request), true);
}

Result<ApiReply> ApiClient::putJson(const std::string& path, const nlohmann::json& body) {
  auto request = makeRequest("PUT", path, kAcceptJson);
  request.set_header("Content-Type", kJsonType);
  request.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return impl_->send(std::move(request), true);
}

Result<ApiReply> ApiClient::patchJson(const std::string& path, const nlohmann::json& body) {
  auto request = makeRequest("PATCH", path, kAcceptJson);
  request.set_header("Content-Type", kJsonType);
  request.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return impl_->send(std::move(request), true);
}

Result<ApiReply> ApiClient::putFile(const std::string& path, const std::string& file_path) {
  return impl_->putFile(path, file_path);
}

Result<ApiReply> ApiClient::deleteJson(const std::string& path) {
  return impl_->send(makeRequest("DELETE", path, kAcceptJson), true);
}

}  // namespace provisioner::cli
