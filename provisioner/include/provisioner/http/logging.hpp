// One JSON object per log line on spdlog's default logger, and structured log events.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

// spdlog's level enum has a fixed underlying type, so callers need not pay for spdlog's headers.
namespace spdlog::level {
enum level_enum : int;
}

namespace provisioner::http {

// Sets the default logger's level and a pattern whose every line is a JSON object:
// {"ts":"2026-01-02T03:04:05.678Z","level":"info","msg":"...", <fields of logEvent>}.
// Plain spdlog::info("...") calls stay valid JSON: their text becomes the escaped "msg".
void configureJsonLogging(spdlog::level::level_enum level);

// Whether a record at `level` would be written: lets hot paths skip building it.
bool shouldLog(spdlog::level::level_enum level);

// Logs `msg` with extra fields (an object; non-object values are logged under "fields").
// With JSON logging the fields become top-level keys of the line, otherwise they follow the
// message as JSON text.
void logEvent(spdlog::level::level_enum level, std::string_view msg, const nlohmann::json& fields);

// `text` escaped for use inside a JSON string literal (no surrounding quotes). Invalid UTF-8 is
// replaced with U+FFFD, so the output is always valid JSON.
std::string jsonEscape(std::string_view text);

}  // namespace provisioner::http
