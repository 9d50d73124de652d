// The Redfish suite's test PKI (OpenSSL, made at test time), compiled into agent_tests too so the
// agent's https client is tested against a certificate it must verify.
#include "redfish/support/fixture_certs.cpp"  // NOLINT(bugprone-suspicious-include)
