// The REST client provisionerctl talks through: bearer auth, timeouts, problem+json as Errors.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "common/result.hpp"
#include "provisioner/cli/url.hpp"

namespace provisioner::cli {

struct ApiReply {
  int status = 0;
  std::string body;     // the bytes as the server sent them
  nlohmann::json json;  // parsed body; null for non-JSON replies (CSV)
};

struct ClientSettings {
  Endpoint endpoint;
  std::string token;
  std::chrono::seconds connectTimeout{5};
  std::chrono::seconds readTimeout{60};  // a CSV export of a large fleet takes a while
};

// One connection's worth of API calls. Every non-2xx answer becomes an Error: the problem's
// code, detail and field, with "HTTP <status>, request <id>" as the Error's detail. Transport
// failures are kConnectionErrorCode errors naming the URL.
class ApiClient {
 public:
  explicit ApiClient(ClientSettings settings);
  ~ApiClient();
  ApiClient(ApiClient&&) noexcept;
  ApiClient& operator=(ApiClient&&) noexcept;

  common::Result<ApiReply> getJson(const std::string& path, const Query& query = {});
  common::Result<ApiReply> getText(const std::string& path, const Query& query,
                                   const std::string& accept);
  common::Result<ApiReply> postJson(const std::string& path, const nlohmann::json& body);
  common::Result<ApiReply> postBody(const std::string& path, const Query& query, std::string body,
                                    const std::string& contentType);
  common::Result<ApiReply> putJson(const std::string& path, const nlohmann::json& body);
  common::Result<ApiReply> patchJson(const std::string& path, const nlohmann::json& body);
  common::Result<ApiReply> deleteJson(const std::string& path);
  // PUT with the file's bytes streamed as application/octet-stream.
  common::Result<ApiReply> putFile(const std::string& path, const std::string& file_path);

  std::string baseUrl() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace provisioner::cli
