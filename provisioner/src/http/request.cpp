#include "provisioner/http/request.hpp"

#include <nlohmann/json.hpp>

#include "text.hpp"

namespace provisioner::http {
namespace {

struct MethodName {
  Method method;
  std::string_view name;
};
constexpr MethodName kMethodNames[] = {{Method::kGet, "GET"},
                                       {Method::kPost, "POST"},
                                       {Method::kPut, "PUT"},
                                       {Method::kPatch, "PATCH"},
                                       {Method::kDelete, "DELETE"}};

}  // namespace

std::string_view bearerToken(std::string_view header) {
  header = text::trim(header);
  constexpr std::string_view kScheme = "bearer ";
  if (header.size() <= kScheme.size() ||
      !text::equalsIgnoreCase(header.substr(0, kScheme.size()), kScheme)) {
    return {};
  }
  const auto token = text::trim(header.substr(kScheme.size()));
  return token.find_first_of(" \t") == std::string_view::npos ? token : std::string_view{};
}

std::string_view toString(Method method) {
  for (const auto& entry : kMethodNames) {
    if (entry.method == method) return entry.name;
  }
  return "UNKNOWN";
}

std::optional<Method> parseMethod(std::string_view text) {
  for (const auto& entry : kMethodNames) {
    if (entry.name == text) return entry.method;
  }
  return std::nullopt;
}

bool isMutating(Method method) {
  return method != Method::kGet;
}

std::string Request::header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (text::equalsIgnoreCase(key, name)) return value;
  }
  return {};
}

std::optional<std::string> Request::query(std::string_view name) const {
  auto it = query_params.find(std::string(name));
  if (it == query_params.end()) return std::nullopt;
  return it->second;
}

const std::string& Request::pathParam(std::string_view name) const {
  static const std::string kEmpty;
  auto it = path_params.find(std::string(name));
  return it == path_params.end() ? kEmpty : it->second;
}

Response jsonResponse(int status, const nlohmann::json& body) {
  Response response;
  response.status = status;
  response.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return response;
}

}  // namespace provisioner::http
