// Letting the private PostgreSQL's server user (postgres, when we run as root) reach its folder
// inside a state dir only root may enter, without letting it read the keys beside it.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "common/result.hpp"

namespace provisioner::service {

// The system.posix_acl_access value for a folder of mode `mode` plus one named-user entry that
// gives `uid` search (x) only: what `setfacl -m u:UID:x` writes when the folder had no ACL. Pure.
std::string searchOnlyAcl(mode_t mode, uid_t uid);

// Makes `folder` (state_dir/postgres, owned by `user`) reachable by `user`. When the state dir is
// what blocks it, grants `user` search-only on the state dir (an ACL entry, nothing for anyone
// else), but only when none of `secret_files` would then be readable by it (each must be absent
// or have no group/other permission bits). Otherwise an error naming the folder and the fix.
common::Result<void> letServerUserIn(const std::string& state_dir, const std::string& folder,
                                     const std::string& user,
                                     const std::vector<std::string>& secret_files);

}  // namespace provisioner::service
