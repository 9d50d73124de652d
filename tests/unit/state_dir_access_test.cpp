#include <catch2/catch.hpp>

#include <cstdint>

#include "provisioner/service/state_dir_access.hpp"

namespace {

struct AclEntry {
  std::uint16_t tag;
  std::uint16_t perm;
  std::uint32_t id;
};

std::uint32_t le(const std::string& s, std::size_t at, int bytes) {
  std::uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(s[at + i]);
  return v;
}

std::vector<AclEntry> entries(const std::string& acl) {
  std::vector<AclEntry> out;
  for (std::size_t at = 4; at + 8 <= acl.size(); at += 8) {
    out.push_back({static_cast<std::uint16_t>(le(acl, at, 2)),
                   static_cast<std::uint16_t>(le(acl, at + 2, 2)), le(acl, at + 4, 4)});
  }
  return out;
}

}  // namespace

TEST_CASE("the state dir ACL gives the server user search only, nobody else more", "[state_dir]") {
  const std::string acl = provisioner::service::searchOnlyAcl(0700, 101);
  REQUIRE(acl.size() == 4 + 5 * 8);
  CHECK(le(acl, 0, 4) == 2);  // POSIX_ACL_XATTR_VERSION
  auto e = entries(acl);
  REQUIRE(e.size() == 5);
  CHECK((e[0].tag == 0x01 && e[0].perm == 7));                    // owner: rwx, as before
  CHECK((e[1].tag == 0x02 && e[1].perm == 1 && e[1].id == 101));  // postgres: --x
  CHECK((e[2].tag == 0x04 && e[2].perm == 0));                    // owning group: still ---
  CHECK((e[3].tag == 0x10 && e[3].perm == 1));                    // mask: --x at most
  CHECK((e[4].tag == 0x20 && e[4].perm == 0));                    // others: still ---
}

TEST_CASE("the state dir ACL keeps the folder's other permissions", "[state_dir]") {
  auto e = entries(provisioner::service::searchOnlyAcl(0750, 7));
  REQUIRE(e.size() == 5);
  CHECK(e[2].perm == 5);
  CHECK(e[3].perm == 5);
  CHECK(e[4].perm == 0);
}
