// The transport's pure rules: URL normalisation, fingerprints, retry decisions, backoff,
// Retry-After, and how login answers are read.
#include <catch2/catch.hpp>

#include <set>

#include "redfish/errors.hpp"
#include "transport/retry_policy.hpp"
#include "transport/session_rules.hpp"
#include "transport/tls_pin.hpp"
#include "transport/url.hpp"

using namespace redfish::detail;
using redfish::Method;
using namespace std::chrono_literals;

TEST_CASE("transport normalises BMC base URLs", "[transport][rules]") {
  CHECK(normaliseBaseUrl("HTTPS://BMC-1.Example:443/redfish/v1/").value() ==
        "https://bmc-1.example");
  CHECK(normaliseBaseUrl("http://10.0.0.5:80").value() == "http://10.0.0.5");
  CHECK(normaliseBaseUrl("http://10.0.0.5:8080?x").value() == "http://10.0.0.5:8080");
  CHECK(normaliseBaseUrl("https://[fe80::1]:8443").value() == "https://[fe80::1]:8443");
  for (const char* bad : {"10.0.0.5", "ftp://h", "http://", "http://h:0", "http://h:99999",
                          "http://u:p@h", "http://h:x"}) {
    INFO(bad);
    CHECK_FALSE(normaliseBaseUrl(bad).ok());
  }
}

TEST_CASE("transport resolves targets on the same BMC only", "[transport][rules]") {
  CHECK(resolveTarget("https://h", "/redfish/v1?$top=1").value() == "https://h/redfish/v1?$top=1");
  CHECK(resolveTarget("https://h", "HTTPS://H:443/redfish/v1/TaskMonitor/1").value() ==
        "https://h/redfish/v1/TaskMonitor/1");
  CHECK_FALSE(resolveTarget("https://h", "https://other/redfish/v1").ok());
  CHECK_FALSE(resolveTarget("https://h", "redfish/v1").ok());
}

TEST_CASE("transport normalises SHA-256 fingerprints", "[transport][rules]") {
  std::string hex(64, 'a');
  CHECK(normaliseFingerprint(hex).value() == hex);
  std::string colons;
  for (int i = 0; i < 32; ++i) colons += (i ? ":" : "") + std::string("AA");
  CHECK(normaliseFingerprint(colons).value() == hex);
  CHECK_FALSE(normaliseFingerprint(std::string(63, 'a')).has_value());
  CHECK_FALSE(normaliseFingerprint(std::string(64, 'g')).has_value());
}

TEST_CASE("transport retries only connection failures time-outs and 502 503 504",
          "[transport][rules]") {
  CHECK(shouldRetry(Method::kGet, AttemptFailure::kNone, 503, 1, 4));
  CHECK(shouldRetry(Method::kGet, AttemptFailure::kNone, 502, 1, 4));
  CHECK(shouldRetry(Method::kPost, AttemptFailure::kNone, 504, 1, 4));
  CHECK_FALSE(shouldRetry(Method::kGet, AttemptFailure::kNone, 503, 4, 4));
  for (long status : {200L, 400L, 401L, 404L, 409L, 429L, 500L, 501L}) {
    CHECK_FALSE(shouldRetry(Method::kGet, AttemptFailure::kNone, status, 1, 4));
  }
  CHECK(shouldRetry(Method::kPost, AttemptFailure::kConnect, 0, 1, 4));
  CHECK(shouldRetry(Method::kGet, AttemptFailure::kTimeout, 0, 1, 4));
  CHECK(shouldRetry(Method::kPatch, AttemptFailure::kBrokenAfterSend, 0, 1, 4));
  CHECK_FALSE(shouldRetry(Method::kPost, AttemptFailure::kTimeout, 0, 1, 4));
  CHECK_FALSE(shouldRetry(Method::kPost, AttemptFailure::kBrokenAfterSend, 0, 1, 4));
  CHECK_FALSE(shouldRetry(Method::kGet, AttemptFailure::kTls, 0, 1, 4));
  CHECK_FALSE(shouldRetry(Method::kGet, AttemptFailure::kOther, 0, 1, 4));
}

TEST_CASE("transport backoff grows exponentially with jitter up to the cap", "[transport][rules]") {
  std::mt19937_64 random(7);
  for (int i = 0; i < 200; ++i) {
    auto first = backoffDelay(1, 250ms, 10000ms, random);
    CHECK(first >= 125ms);
    CHECK(first <= 250ms);
    auto third = backoffDelay(3, 250ms, 10000ms, random);
    CHECK(third >= 500ms);
    CHECK(third <= 1000ms);
    auto late = backoffDelay(30, 250ms, 10000ms, random);
    CHECK(late >= 5000ms);
    CHECK(late <= 10000ms);
  }
  std::set<long> seen;
  for (int i = 0; i < 50; ++i) seen.insert(backoffDelay(4, 250ms, 10000ms, random).count());
  CHECK(seen.size() > 10);  // jittered, not a fixed schedule
}

TEST_CASE("transport reads Retry-After as seconds or an HTTP date", "[transport][rules]") {
  auto now = std::chrono::system_clock::from_time_t(784111777);  // Sun, 06 Nov 1994 08:49:37 GMT
  CHECK(parseRetryAfter("5", now).value() == 5000ms);
  CHECK(parseRetryAfter(" 0 ", now).value() == 0ms);
  CHECK(parseRetryAfter("Sun, 06 Nov 1994 08:50:07 GMT", now).value() == 30000ms);
  CHECK(parseRetryAfter("Sun, 06 Nov 1994 08:00:00 GMT", now).value() == 0ms);
  for (const char* bad : {"", "-1", "soon", "5s", "Sun, 06 Nov 1994 08:50:07 PST"}) {
    INFO(bad);
    CHECK_FALSE(parseRetryAfter(bad, now).has_value());
  }
}

TEST_CASE("transport reads session links and login refusals", "[transport][rules]") {
  CHECK(sessionsLink(R"({"Links":{"Sessions":{"@odata.id":"/redfish/v1/S/Sessions"}}})").value() ==
        "/redfish/v1/S/Sessions");
  CHECK_FALSE(sessionsLink(R"({"Links":{"Sessions":"nope"}})").has_value());
  CHECK_FALSE(sessionsLink("not json").has_value());
  CHECK(sessionServiceLink(R"({"SessionService":{"@odata.id":"/redfish/v1/SS"}})").value() ==
        "/redfish/v1/SS");
  auto body = loginBody("ad\"min", "pa\\ss");
  CHECK(body == R"({"Password":"pa\\ss","UserName":"ad\"min"})");

  redfish::Response limit;
  limit.status = 400;
  limit.body = R"({"error":{"@Message.ExtendedInfo":[{"MessageId":"IDRAC.2.8.RAC0218"},
               {"MessageId":"Base.1.12.SessionLimitExceeded"}]}})";
  CHECK(isSessionLimit(limit));
  CHECK(loginError(limit, "u").code == redfish::codes::kSessionLimit);
  redfish::Response refused;
  refused.status = 401;
  CHECK(loginError(refused, "u").code == redfish::codes::kAuthFailed);
  redfish::Response other;
  other.status = 400;
  other.body = R"({"error":{"@Message.ExtendedInfo":[{"MessageId":"Base.1.8.PropertyMissing"}]}})";
  CHECK_FALSE(isSessionLimit(other));
  CHECK(loginError(other, "u").code == redfish::codes::kHttpError);
}
