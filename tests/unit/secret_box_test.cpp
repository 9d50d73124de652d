#include <catch2/catch.hpp>

#include "common/secret_box.hpp"

using common::SecretBox;

namespace {
const char* kKeyHex = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
}

TEST_CASE("SecretBox seals and opens a secret, and each seal differs", "[unit][crypto]") {
  auto box = SecretBox::fromKeyText(kKeyHex);
  REQUIRE(box.ok());
  auto a = box->seal("factory-password");
  auto b = box->seal("factory-password");
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(*a != *b);
  CHECK(a->find("factory-password") == std::string::npos);
  auto opened = box->open(*a);
  REQUIRE(opened.ok());
  CHECK(*opened == "factory-password");
}

TEST_CASE("SecretBox refuses a tampered or foreign seal", "[unit][crypto]") {
  auto box = SecretBox::fromKeyText(kKeyHex);
  REQUIRE(box.ok());
  auto sealed = box->seal("pw");
  REQUIRE(sealed.ok());
  std::string tampered = *sealed;
  tampered[tampered.size() - 3] = tampered[tampered.size() - 3] == 'A' ? 'B' : 'A';
  auto r = box->open(tampered);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == "secret_decryption_failed");

  auto other = SecretBox::fromKeyText(std::string(64, 'f'));
  REQUIRE(other.ok());
  CHECK_FALSE(other->open(*sealed).ok());
}

TEST_CASE("SecretBox rejects unusable keys naming the problem", "[unit][crypto]") {
  auto r = SecretBox::fromKeyText("too-short");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == "invalid_secret_key");
  CHECK_FALSE(SecretBox::fromKeyText(std::string(64, 'z')).ok());
  CHECK(SecretBox::fromKeyText(common::base64Encode(std::string(32, 'k'))).ok());
}

TEST_CASE("sha256Hex matches the known digest of 'abc'", "[unit][crypto]") {
  CHECK(common::sha256Hex("abc") ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}
