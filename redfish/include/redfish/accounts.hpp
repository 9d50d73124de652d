// BMC account password change: AccountService -> Accounts, found by UserName, PATCH with If-Match.
#pragma once

#include <string>

#include "common/result.hpp"
#include "redfish/client.hpp"
#include "redfish/quirks.hpp"

namespace redfish {

// The password never appears in errors; a missing user is kNotFound (bmc_account_not_found).
common::Result<void> changeAccountPassword(Client& client, const std::string& userName,
                                           const std::string& newPassword,
                                           const Quirks& quirks = {});

}  // namespace redfish
