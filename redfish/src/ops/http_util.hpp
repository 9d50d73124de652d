// Small blocking helpers shared by the synchronous operations: GET a resource as JSON with its
// ETag, PATCH/POST with the right If-Match, and turn non-2xx answers into typed errors.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.hpp"
#include "redfish/client.hpp"
#include "redfish/json.hpp"
#include "redfish/quirks.hpp"

namespace redfish::ops {

struct Resource {
  Json body;
  std::string etag;  // ETag header, else @odata.etag; empty when the BMC gave none
  std::string path;
};

common::Result<Resource> getResource(Client& client, const std::string& path);

// PATCH `body` with If-Match: "*" when the quirk demands it, else `etag` (or no If-Match when the
// resource had no ETag at all).
common::Result<Response> patchResource(Client& client, const std::string& path, const Json& body,
                                       const std::string& etag, const Quirks& quirks);

common::Result<Response> postJson(Client& client, const std::string& path, const Json& body);

// The AccountService account whose UserName (or, with match_id, Id) is `name`: root ->
// AccountService -> Accounts -> members. nullopt when none is; NotSupported when the BMC links no
// AccountService or Accounts.
common::Result<std::optional<Resource>> findAccount(Client& client, const std::string& name,
                                                    bool match_id);

// Non-2xx -> httpError; transport errors pass through.
common::Result<Response> expectSuccess(common::Result<Response> answer, std::string_view method);

// An action's allowable values for `parameter`: inline "<parameter>@Redfish.AllowableValues",
// else the @Redfish.ActionInfo resource's Parameters[Name == parameter].AllowableValues.
// nullopt: the BMC does not say (any schema value may be tried).
common::Result<std::optional<std::vector<std::string>>> allowableValues(Client& client,
                                                                        const Json& action,
                                                                        std::string_view parameter);

std::string joined(const std::vector<std::string>& values);
common::Error notAllowed(std::string_view what, std::string_view value,
                         const std::vector<std::string>& allowed);
common::Error notSupported(std::string message);

// The path part of an absolute URL ("https://h/redfish/v1/x" -> "/redfish/v1/x"); paths pass.
std::string pathOf(std::string_view target);

}  // namespace redfish::ops
