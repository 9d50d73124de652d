#include "http_util.hpp"

#include "redfish/errors.hpp"

namespace redfish::ops {

common::Result<Response> expectSuccess(common::Result<Response> answer, std::string_view method) {
  if (!answer) return answer;
  if (!answer->isSuccess()) return httpError(method, *answer);
  return answer;
}

common::Result<Resource> getResource(Client& client, const std::string& path) {
  Request request;
  request.target = path;
  PROV_ASSIGN(auto response, expectSuccess(client.send(std::move(request)), "GET"));
  PROV_ASSIGN(auto body, parseBody(response.body, path));
  if (!body.is_object()) return malformedResponse(path, "the body is not a JSON object");
  std::string etag(response.header("etag"));
  if (etag.empty()) etag = stringAt(body, "@odata.etag").value_or("");
  return Resource{std::move(body), std::move(etag), path};
}

common::Result<Response> patchResource(Client& client, const std::string& path, const Json& body,
                                       const std::string& etag, const Quirks& quirks) {
  Request request;
  request.method = Method::kPatch;
  request.target = path;
  request.body = body.dump();
  if (quirks.patchIfMatchStar) {
    request.headers.emplace_back("If-Match", "*");
  } else if (!etag.empty()) {
    request.headers.emplace_back("If-Match", etag);
  }
  return expectSuccess(client.send(std::move(request)), "PATCH");
}

common::Result<Response> postJson(Client& client, const std::string& path, const Json& body) {
  Request request;
  request.method = Method::kPost;
  request.target = path;
  request.body = body.dump();
  return expectSuccess(client.send(std::move(request)), "POST");
}

namespace {

std::vector<std::string> stringsOf(const Json& array) {
  std::vector<std::string> values;
  if (!array.is_array()) return values;
  for (const Json& value : array) {
    if (value.is_string()) values.push_back(value.get<std::string>());
  }
  return values;
}

}  // namespace

common::Result<std::optional<std::vector<std::string>>> allowableValues(
    Client& client, const Json& action, std::string_view parameter) {
  const std::string inlineKey = std::string(parameter) + "@Redfish.AllowableValues";
  if (const Json* values = member(action, inlineKey)) {
    return std::optional<std::vector<std::string>>(stringsOf(*values));
  }
  auto infoPath = stringAt(action, "@Redfish.ActionInfo");
  if (!infoPath) return std::optional<std::vector<std::string>>();
  PROV_ASSIGN(auto info, getResource(client, *infoPath));
  const Json* parameters = member(info.body, "Parameters");
  if (parameters != nullptr && parameters->is_array()) {
    for (const Json& entry : *parameters) {
      if (stringAt(entry, "Name") != parameter) continue;
      if (const Json* values = member(entry, "AllowableValues")) {
        return std::optional<std::vector<std::string>>(stringsOf(*values));
      }
    }
  }
  return std::optional<std::vector<std::string>>();
}

std::string joined(const std::vector<std::string>& values) {
  std::string out;
  for (const auto& value : values) {
    if (!out.empty()) out += ", ";
    out += value;
  }
  return out;
}

common::Error notAllowed(std::string_view what, std::string_view value,
                         const std::vector<std::string>& allowed) {
  return common::Error{common::ErrorKind::kInvalidArgument, std::string(codes::kNotAllowed),
                       std::string(what) + " '" + std::string(value) +
                           "' is not allowed by the BMC; allowed: " + joined(allowed),
                       std::string(what), joined(allowed)};
}

common::Error notSupported(std::string message) {
  return common::Error{common::ErrorKind::kInvalidArgument,
                       std::string(codes::kNotSupported),
                       std::move(message),
                       {},
                       {}};
}

std::string pathOf(std::string_view target) {
  auto scheme = target.find("://");
  if (scheme == std::string_view::npos) return std::string(target);
  auto slash = target.find('/', scheme + 3);
  return slash == std::string_view::npos ? "/" : std::string(target.substr(slash));
}

common::Result<std::optional<Resource>> findAccount(Client& client, const std::string& name,
                                                    bool match_id) {
  PROV_ASSIGN(auto root, getResource(client, "/redfish/v1"));
  auto servicePath = odataLink(root.body, "AccountService");
  if (!servicePath) return notSupported("the service root links no AccountService");
  PROV_ASSIGN(auto service, getResource(client, *servicePath));
  auto accountsPath = odataLink(service.body, "Accounts");
  if (!accountsPath) return notSupported("AccountService links no Accounts");
  PROV_ASSIGN(auto accounts, getResource(client, *accountsPath));
  for (const auto& link : memberLinks(accounts.body)) {
    PROV_ASSIGN(auto account, getResource(client, link));
    if (stringAt(account.body, "UserName") == name ||
        (match_id && stringAt(account.body, "Id") == name)) {
      return std::optional<Resource>(std::move(account));
    }
  }
  return std::optional<Resource>();
}

}  // namespace redfish::ops
