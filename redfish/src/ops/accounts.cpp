#include "redfish/accounts.hpp"

#include "http_util.hpp"

namespace redfish {

common::Result<void> changeAccountPassword(Client& client, const std::string& userName,
                                           const std::string& newPassword, const Quirks& quirks) {
  PROV_ASSIGN(auto account, ops::findAccount(client, userName, /*match_id=*/false));
  if (account) {
    PROV_TRY(ops::patchResource(client, account->path, Json{{"Password", newPassword}},
                                account->etag, quirks));
    return common::success();
  }
  return common::notFound("bmc_account_not_found", "no BMC account named " + userName);
}

}  // namespace redfish
