#include "simulator/http_types.hpp"

#include <nlohmann/json.hpp>

namespace sim {

std::string_view HttpRequest::header(std::string_view lowerName) const {
  for (const auto& [name, value] : headers) {
    if (name == lowerName) return value;
  }
  return {};
}

HttpResponse HttpResponse::json(int status, std::string body) {
  HttpResponse response;
  response.status = status;
  response.headers.emplace_back("Content-Type", "application/json");
  response.body = std::move(body);
  return response;
}

HttpResponse HttpResponse::error(int status, std::string_view messageId, std::string_view message) {
  nlohmann::json info = {{"MessageId", messageId}, {"Message", message}, {"Severity", "Warning"}};
  nlohmann::json body = {
      {"error",
       {{"code", messageId}, {"message", message}, {"@Message.ExtendedInfo", {info}}}}};
  return json(status, body.dump());
}

}  // namespace sim
