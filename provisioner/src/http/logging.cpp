#include "provisioner/http/logging.hpp"

#include <atomic>
#include <random>

#include <spdlog/pattern_formatter.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

namespace provisioner::http {
namespace {

// Marks a payload whose text is already a list of JSON members ("msg":...,"k":v). The random
// part keeps a logged client string from posing as one and injecting fields.
const std::string& structuredMark() {
  static const std::string mark = [] {
    std::random_device random;
    return "\x1e" + std::to_string(random()) + std::to_string(random()) + ":";
  }();
  return mark;
}
constexpr std::string_view kPattern = R"({"ts":"%Y-%m-%dT%H:%M:%S.%eZ","level":"%l",%*})";

std::atomic<bool> json_logging{false};

std::string dumpSafe(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The %* flag: structured payloads are spliced in as members, anything else becomes "msg".
class PayloadFlag final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    std::string_view payload(msg.payload.data(), msg.payload.size());
    std::string members;
    if (payload.starts_with(structuredMark())) {
      payload.remove_prefix(structuredMark().size());
    } else {
      members = "\"msg\":\"" + jsonEscape(payload) + "\"";
      payload = members;
    }
    dest.append(payload.data(), payload.data() + payload.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<PayloadFlag>();
  }
};

}  // namespace

void configureJsonLogging(spdlog::level::level_enum level) {
  auto formatter = std::make_unique<spdlog::pattern_formatter>(spdlog::pattern_time_type::utc);
  formatter->add_flag<PayloadFlag>('*').set_pattern(std::string(kPattern));
  spdlog::set_formatter(std::move(formatter));
  spdlog::set_level(level);
  json_logging.store(true);
}

bool shouldLog(spdlog::level::level_enum level) {
  return spdlog::default_logger_raw()->should_log(level);
}

void logEvent(spdlog::level::level_enum level, std::string_view msg, const nlohmann::json& fields) {
  auto logger = spdlog::default_logger();
  if (!logger->should_log(level)) return;
  nlohmann::json object = fields.is_object() ? fields : nlohmann::json::object();
  if (!fields.is_object() && !fields.is_null()) object["fields"] = fields;
  if (!json_logging.load()) {
    logger->log(level, "{} {}", msg, dumpSafe(object));
    return;
  }
  object.erase("msg");
  object.erase("ts");
  object.erase("level");
  std::string line = structuredMark();
  line += "\"msg\":\"" + jsonEscape(msg) + "\"";
  const std::string rest = dumpSafe(object);  // "{...}": keep the members without the braces
  if (rest.size() > 2) line += "," + rest.substr(1, rest.size() - 2);
  logger->log(level, "{}", line);
}

std::string jsonEscape(std::string_view text) {
  const std::string quoted = dumpSafe(nlohmann::json(std::string(text)));
  return quoted.substr(1, quoted.size() - 2);
}

}  // namespace provisioner::http
