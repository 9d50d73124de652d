// The wipe report on the wire: per GPU the passes and their figures, per drive the erase method
// and its verification. Parsed strictly: every enumerated word is checked, sizes are bounded.
#include <algorithm>
#include <initializer_list>

#include <nlohmann/json.hpp>

#include "agent/wipe.hpp"
#include "protocol/json_fields.hpp"
#include "protocol/wipe_json.hpp"

namespace agent {

using common::Result;
using json_fields::Need;
using json_fields::ObjectReader;

namespace {

constexpr std::size_t kMaxGpus = 64;
constexpr std::size_t kMaxDrives = 256;
constexpr std::size_t kMaxPasses = 8;
constexpr std::size_t kMaxUnreachable = 16;
constexpr std::size_t kMaxFallbacks = 16;
constexpr std::size_t kMaxErrorLength = 1024;
constexpr double kMaxSeconds = 30 * 86400.0;
constexpr double kMaxGbps = 1e7;

Result<void> readChoice(const ObjectReader& reader, std::string_view key, std::string& out,
                        std::initializer_list<std::string_view> choices) {
  PROV_TRY(reader.readString(key, out, Need::kOptional));
  if (std::find(choices.begin(), choices.end(), out) != choices.end()) return common::success();
  std::string words;
  for (std::string_view choice : choices)
    words += (words.empty() ? "" : ", ") + std::string(choice);
  return reader.error(key, "must be one of " + words);
}

template <class T, class Parse>
Result<std::vector<T>> parseList(const ObjectReader& reader, std::string_view key,
                                 std::size_t max_items, Parse parse) {
  PROV_ASSIGN(const nlohmann::json* array, reader.readArray(key, max_items, Need::kOptional));
  std::vector<T> items;
  if (array == nullptr) return items;
  for (std::size_t i = 0; i < array->size(); ++i) {
    ObjectReader item(array->at(i), reader.pathOf(key, i), reader.code());
    PROV_TRY(item.requireObject());
    PROV_ASSIGN(auto parsed, parse(item));
    items.push_back(std::move(parsed));
  }
  return items;
}

Result<UnreachableMemory> parseUnreachable(const ObjectReader& reader) {
  UnreachableMemory u;
  PROV_TRY(reader.readString("what", u.what, Need::kRequired, /*allow_empty=*/false, 64));
  PROV_TRY(reader.readUnsigned("bytes", u.bytes, Need::kRequired));
  return u;
}

Result<WipePass> parsePass(const ObjectReader& reader) {
  WipePass p;
  PROV_TRY(reader.readString("name", p.name, Need::kRequired));
  PROV_TRY(readChoice(reader, "name", p.name, {"pattern", "random", "zero"}));
  PROV_TRY(reader.readUnsigned("bytes_written", p.bytes_written, Need::kOptional));
  PROV_TRY(reader.readUnsigned("bytes_verified", p.bytes_verified, Need::kOptional));
  PROV_TRY(reader.readUnsigned("mismatches", p.mismatches, Need::kOptional));
  PROV_TRY(reader.readDouble("seconds", p.seconds, 0, kMaxSeconds, Need::kOptional));
  PROV_TRY(reader.readDouble("gbps", p.gbps, 0, kMaxGbps, Need::kOptional));
  return p;
}

Result<GpuWipeReport> parseGpu(const ObjectReader& reader) {
  GpuWipeReport g;
  PROV_TRY(reader.readString("gpu_serial", g.gpu_serial, Need::kRequired));
  PROV_TRY(reader.readString("gpu_uuid", g.gpu_uuid, Need::kOptional));
  PROV_TRY(reader.readString("gpu_model", g.gpu_model, Need::kOptional));
  PROV_TRY(reader.readUnsigned("total_bytes", g.total_bytes, Need::kOptional));
  PROV_TRY(reader.readUnsigned("covered_bytes", g.covered_bytes, Need::kOptional));
  PROV_ASSIGN(g.unreachable, parseList<UnreachableMemory>(reader, "unreachable", kMaxUnreachable,
                                                          parseUnreachable));
  PROV_ASSIGN(g.passes, parseList<WipePass>(reader, "passes", kMaxPasses, parsePass));
  PROV_TRY(reader.readUnsigned("bytes_written", g.bytes_written, Need::kOptional));
  PROV_TRY(reader.readUnsigned("bytes_verified", g.bytes_verified, Need::kOptional));
  PROV_TRY(reader.readUnsigned("mismatches", g.mismatches, Need::kOptional));
  PROV_TRY(reader.readDouble("seconds", g.seconds, 0, kMaxSeconds, Need::kOptional));
  PROV_TRY(reader.readDouble("gbps", g.gbps, 0, kMaxGbps, Need::kOptional));
  PROV_TRY(readChoice(reader, "reset", g.reset,
                      {"done", "not_permitted", "not_supported", "failed", "skipped"}));
  PROV_TRY(reader.readString("started_at", g.started_at, Need::kOptional, true, 64));
  PROV_TRY(reader.readString("finished_at", g.finished_at, Need::kOptional, true, 64));
  PROV_TRY(reader.readString("error", g.error, Need::kOptional, true, kMaxErrorLength));
  return g;
}

Result<DriveFallback> parseFallback(const ObjectReader& reader) {
  DriveFallback f;
  PROV_TRY(reader.readString("method", f.method, Need::kRequired, /*allow_empty=*/false, 64));
  PROV_TRY(reader.readString("reason", f.reason, Need::kOptional, true, kMaxErrorLength));
  return f;
}

Result<DriveVerification> parseVerification(const ObjectReader& parent) {
  DriveVerification v;
  const nlohmann::json* object = parent.find("verification");
  if (object == nullptr) return v;
  ObjectReader reader(*object, parent.pathOf("verification"), parent.code());
  PROV_TRY(reader.requireObject());
  PROV_TRY(reader.readString("method", v.method, Need::kOptional, true, 64));
  PROV_TRY(reader.readUnsigned("canaries_written", v.canaries_written, Need::kOptional));
  PROV_TRY(reader.readUnsigned("canaries_remaining", v.canaries_remaining, Need::kOptional));
  PROV_TRY(reader.readDouble("sample_coverage", v.sample_coverage, 0, 1, Need::kOptional));
  PROV_TRY(reader.readUnsigned("sample_blocks", v.sample_blocks, Need::kOptional));
  PROV_TRY(reader.readUnsigned("unchanged_blocks", v.unchanged_blocks, Need::kOptional));
  return v;
}

Result<DriveReport> parseDrive(const ObjectReader& reader) {
  DriveReport d;
  PROV_TRY(reader.readString("serial", d.serial, Need::kRequired, /*allow_empty=*/false));
  PROV_TRY(reader.readString("model", d.model, Need::kOptional));
  PROV_TRY(reader.readString("manufacturer", d.manufacturer, Need::kOptional));
  PROV_TRY(readChoice(reader, "media_type", d.media_type, {"ssd", "hdd"}));
  PROV_TRY(reader.readString("interface", d.interface, Need::kRequired));
  PROV_TRY(readChoice(reader, "interface", d.interface, {"nvme", "sata", "sas", "file"}));
  PROV_TRY(reader.readUnsigned("capacity_bytes", d.capacity_bytes, Need::kOptional));
  PROV_TRY(reader.readString("path", d.path, Need::kOptional, true, 64));
  PROV_TRY(readChoice(
      reader, "method", d.method,
      {"nvme_sanitize_crypto", "nvme_sanitize_block", "nvme_format_ses2", "nvme_format_ses1",
       "ata_enhanced_secure_erase", "ata_secure_erase", "overwrite", "none"}));
  PROV_TRY(readChoice(reader, "nist_level", d.nist_level, {"purge", "clear", "none"}));
  PROV_TRY(reader.readString("technique", d.technique, Need::kOptional));
  PROV_TRY(reader.readString("tool", d.tool, Need::kOptional));
  PROV_TRY(reader.readString("tool_version", d.tool_version, Need::kOptional));
  PROV_ASSIGN(d.fallbacks,
              parseList<DriveFallback>(reader, "fallbacks", kMaxFallbacks, parseFallback));
  PROV_ASSIGN(d.verification, parseVerification(reader));
  PROV_TRY(reader.readString("result", d.result, Need::kRequired));
  PROV_TRY(readChoice(reader, "result", d.result, {"passed", "failed"}));
  PROV_TRY(reader.readString("error", d.error, Need::kOptional, true, kMaxErrorLength));
  PROV_TRY(reader.readString("started_at", d.started_at, Need::kOptional, true, 64));
  PROV_TRY(reader.readString("finished_at", d.finished_at, Need::kOptional, true, 64));
  return d;
}

nlohmann::json toJson(const WipePass& p) {
  return {{"name", p.name},
          {"bytes_written", p.bytes_written},
          {"bytes_verified", p.bytes_verified},
          {"mismatches", p.mismatches},
          {"seconds", p.seconds},
          {"gbps", p.gbps}};
}

nlohmann::json toJson(const GpuWipeReport& g) {
  nlohmann::json unreachable = nlohmann::json::array();
  for (const auto& u : g.unreachable) unreachable.push_back({{"what", u.what}, {"bytes", u.bytes}});
  nlohmann::json passes = nlohmann::json::array();
  for (const auto& p : g.passes) passes.push_back(toJson(p));
  return {{"gpu_serial", g.gpu_serial},
          {"gpu_uuid", g.gpu_uuid},
          {"gpu_model", g.gpu_model},
          {"total_bytes", g.total_bytes},
          {"covered_bytes", g.covered_bytes},
          {"unreachable", std::move(unreachable)},
          {"passes", std::move(passes)},
          {"bytes_written", g.bytes_written},
          {"bytes_verified", g.bytes_verified},
          {"mismatches", g.mismatches},
          {"seconds", g.seconds},
          {"gbps", g.gbps},
          {"reset", g.reset},
          {"started_at", g.started_at},
          {"finished_at", g.finished_at},
          {"error", g.error}};
}

nlohmann::json toJson(const DriveReport& d) {
  nlohmann::json fallbacks = nlohmann::json::array();
  for (const auto& f : d.fallbacks)
    fallbacks.push_back({{"method", f.method}, {"reason", f.reason}});
  const DriveVerification& v = d.verification;
  return {{"serial", d.serial},
          {"model", d.model},
          {"manufacturer", d.manufacturer},
          {"media_type", d.media_type},
          {"interface", d.interface},
          {"capacity_bytes", d.capacity_bytes},
          {"path", d.path},
          {"method", d.method},
          {"nist_level", d.nist_level},
          {"technique", d.technique},
          {"tool", d.tool},
          {"tool_version", d.tool_version},
          {"fallbacks", std::move(fallbacks)},
          {"verification",
           {{"method", v.method},
            {"canaries_written", v.canaries_written},
            {"canaries_remaining", v.canaries_remaining},
            {"sample_coverage", v.sample_coverage},
            {"sample_blocks", v.sample_blocks},
            {"unchanged_blocks", v.unchanged_blocks}}},
          {"result", d.result},
          {"error", d.error},
          {"started_at", d.started_at},
          {"finished_at", d.finished_at}};
}

}  // namespace

namespace wipe_json {

Result<WipeReport> parseReportAt(const nlohmann::json& object, std::string path, std::string code) {
  ObjectReader reader(object, std::move(path), std::move(code));
  PROV_TRY(reader.requireObject());
  WipeReport report;
  PROV_ASSIGN(report.gpus, parseList<GpuWipeReport>(reader, "gpus", kMaxGpus, parseGpu));
  PROV_ASSIGN(report.drives, parseList<DriveReport>(reader, "drives", kMaxDrives, parseDrive));
  PROV_TRY(reader.readString("tool", report.tool, Need::kOptional));
  PROV_TRY(reader.readString("tool_version", report.tool_version, Need::kOptional));
  PROV_TRY(reader.readString("backend", report.backend, Need::kRequired));
  PROV_TRY(readChoice(reader, "backend", report.backend, {"cuda", "simulated"}));
  return report;
}

}  // namespace wipe_json

Result<WipeReport> parseWipeReport(const nlohmann::json& object) {
  return wipe_json::parseReportAt(object, "", "invalid_result");
}

nlohmann::json toJson(const WipeReport& report) {
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& g : report.gpus) gpus.push_back(toJson(g));
  nlohmann::json drives = nlohmann::json::array();
  for (const auto& d : report.drives) drives.push_back(toJson(d));
  return {{"gpus", std::move(gpus)},
          {"drives", std::move(drives)},
          {"tool", report.tool},
          {"tool_version", report.tool_version},
          {"backend", report.backend}};
}

}  // namespace agent
