#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sstream>

#include "provisioner/http/logging.hpp"

using provisioner::http::configureJsonLogging;
using provisioner::http::jsonEscape;
using provisioner::http::logEvent;

TEST_CASE("jsonEscape produces valid JSON string content", "[unit][http]") {
  CHECK(jsonEscape("plain") == "plain");
  CHECK(jsonEscape("a\"b\\c\n\t") == "a\\\"b\\\\c\\n\\t");
  CHECK(jsonEscape(std::string("\x01", 1)) == "\\u0001");
  const auto replaced = jsonEscape("bad \xff byte");
  CHECK(nlohmann::json::parse("\"" + replaced + "\"") == "bad \xEF\xBF\xBD byte");
}

TEST_CASE("JSON logging writes one JSON object per line", "[unit][http]") {
  std::ostringstream stream;
  auto previous = spdlog::default_logger();
  auto logger = std::make_shared<spdlog::logger>(
      "test", std::make_shared<spdlog::sinks::ostream_sink_mt>(stream));
  spdlog::set_default_logger(logger);
  configureJsonLogging(spdlog::level::info);

  spdlog::info("plain \"quoted\" text");
  spdlog::info("\x1e\"injected\":true");  // a client string posing as structured fields
  logEvent(spdlog::level::warn, "request", {{"request_id", "r1"}, {"status", 503}});
  spdlog::debug("filtered out");

  spdlog::set_default_logger(previous);
  std::istringstream lines(stream.str());
  std::string line;
  std::vector<nlohmann::json> records;
  while (std::getline(lines, line)) records.push_back(nlohmann::json::parse(line));
  REQUIRE(records.size() == 3);
  CHECK(records[0]["msg"] == "plain \"quoted\" text");
  CHECK(records[0]["level"] == "info");
  CHECK(records[0]["ts"].get<std::string>().back() == 'Z');
  CHECK_FALSE(records[1].contains("injected"));
  CHECK(records[1]["msg"] == "\x1e\"injected\":true");
  CHECK(records[2]["msg"] == "request");
  CHECK(records[2]["level"] == "warning");
  CHECK(records[2]["request_id"] == "r1");
  CHECK(records[2]["status"] == 503);
}
