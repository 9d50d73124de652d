#include "redfish/accounts.hpp"

#include "http_util.hpp"

namespace redfish {

common::Result<void> changeAccountPassword(Client& client, const std::string& userName,
                                           const std::string& newPassword, const Quirks& quirks) {
  PROV_ASSIGN(auto root, ops::getResource(client, "/redfish/v1"));
  auto servicePath = odataLink(root.body, "AccountService");
  if (!servicePath) return ops::notSupported("the service root links no AccountService");
  PROV_ASSIGN(auto service, ops::getResource(client, *servicePath));
  auto accountsPath = odataLink(service.body, "Accounts");
  if (!accountsPath) return ops::notSupported("AccountService links no Accounts");
  PROV_ASSIGN(auto accounts, ops::getResource(client, *accountsPath));
  for (const auto& link : memberLinks(accounts.body)) {
    PROV_ASSIGN(auto account, ops::getResource(client, link));
    if (stringAt(account.body, "UserName") != userName) continue;
    PROV_TRY(
        ops::patchResource(client, link, Json{{"Password", newPassword}}, account.etag, quirks));
    return common::success();
  }
  return common::notFound("bmc_account_not_found", "no BMC account named " + userName);
}

}  // namespace redfish
