// The sped-up clock a simulated fleet's health history runs on (docs/health.md, "A simulated
// fleet's days in minutes"): the service and the simulated hosts must read the same time.
#include <catch2/catch.hpp>

#include "common/scaled_time.hpp"
#include "workflows/clock.hpp"

using namespace std::chrono_literals;

TEST_CASE("a scaled clock runs X times as fast from its epoch on", "[unit][clock]") {
  const std::chrono::system_clock::time_point epoch{std::chrono::seconds{1796677537}};
  CHECK(common::scaledTime(epoch, 2880, epoch) == epoch);
  // 30 real seconds are a day at 2880x; 250 ms are 12 minutes.
  CHECK(common::scaledTime(epoch, 2880, epoch + 30s) == epoch + 24h);
  CHECK(common::scaledTime(epoch, 2880, epoch + 250ms) == epoch + 12min);
  CHECK(common::scaledTime(epoch, 1, epoch + 42s) == epoch + 42s);

  // The service's clock and a host's, given the same epoch and scale, agree.
  const auto hour_ago = std::chrono::system_clock::now() - 1h;
  workflows::ScaledClock clock(hour_ago, 2880);
  const auto before = common::scaledTime(hour_ago, 2880, std::chrono::system_clock::now());
  const auto read = clock.now();
  const auto after = common::scaledTime(hour_ago, 2880, std::chrono::system_clock::now());
  CHECK(before <= read);
  CHECK(read <= after);
  // An hour after its epoch, 2880 hours have passed on it: 120 days ahead of the real clock.
  CHECK(read - std::chrono::system_clock::now() > 24h * 119);
}
