#include "redfish/client.hpp"

#include <future>

namespace redfish {

std::string_view toString(Method method) {
  switch (method) {
    case Method::kGet:
      return "GET";
    case Method::kPost:
      return "POST";
    case Method::kPatch:
      return "PATCH";
    case Method::kPut:
      return "PUT";
    case Method::kDelete:
      return "DELETE";
  }
  return "GET";
}

std::string_view Response::header(std::string_view lowerName) const {
  for (const auto& [name, value] : headers) {
    if (name == lowerName) return value;
  }
  return {};
}

common::Result<Response> Client::send(Request request) {
  std::promise<common::Result<Response>> promise;
  auto future = promise.get_future();
  sendAsync(std::move(request),
            [&promise](common::Result<Response> result) { promise.set_value(std::move(result)); });
  return future.get();
}

}  // namespace redfish
