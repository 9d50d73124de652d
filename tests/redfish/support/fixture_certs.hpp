// Test certificates made with OpenSSL at test time (EC P-256) in a private temp directory.
#pragma once

#include <string>

namespace fixture {

struct CertFiles {
  std::string certPath;
  std::string keyPath;
  std::string sha256;  // of the certificate's DER, 64 lowercase hex
};

class TestPki {
 public:
  TestPki();   // creates the temp directory
  ~TestPki();  // removes it
  TestPki(const TestPki&) = delete;
  TestPki& operator=(const TestPki&) = delete;

  // Self-signed for 127.0.0.1 / localhost.
  CertFiles selfSigned(const std::string& name);
  // A CA (certPath = the CA's PEM, usable as a bundle) and a leaf it signed for 127.0.0.1.
  struct CaAndLeaf {
    std::string caPath;
    CertFiles leaf;
  };
  CaAndLeaf caSigned(const std::string& name);
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

}  // namespace fixture
