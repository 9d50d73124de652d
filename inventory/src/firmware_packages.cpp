// Firmware packages: immutable records of artifacts and what they install.
#include "inventory/firmware_packages.hpp"

#include <nlohmann/json.hpp>

#include "catalog_values.hpp"
#include "db.hpp"
#include "queries_firmware_packages.hpp"
#include "values.hpp"

namespace inventory {
namespace {

using detail::Tx;

std::vector<std::string> stringList(const std::string& text) {
  std::vector<std::string> out;
  const auto list = nlohmann::json::parse(text, nullptr, false);
  if (!list.is_array()) return out;
  for (const auto& item : list) {
    if (item.is_string()) out.push_back(item.get<std::string>());
  }
  return out;
}

std::string jsonList(const std::vector<std::string>& values) {
  return nlohmann::json(values).dump();
}

// jsonb normalises spacing and key order: compare the stored text with the input as jsonb would.
std::string normalisedJson(const std::string& text) {
  const auto value = nlohmann::json::parse(text, nullptr, false);
  return value.is_discarded() ? text : value.dump();
}

FirmwarePackage packageFromRow(const pqxx::row& row) {
  FirmwarePackage p;
  p.id = detail::id(row[0]);
  p.spec.name = row[1].c_str();
  p.spec.version = row[2].c_str();
  p.spec.vendor = row[3].c_str();
  p.spec.models = stringList(row[4].c_str());
  p.spec.component = row[5].c_str();
  p.spec.match_json = normalisedJson(row[6].c_str());
  p.spec.sha256 = row[7].c_str();
  p.spec.size = row[8].as<std::int64_t>();
  p.spec.install_method = row[9].c_str();
  p.spec.apply = row[10].c_str();
  p.spec.min_from_version = row[11].c_str();
  p.spec.allow_downgrade = row[12].as<bool>();
  p.spec.estimated_seconds = row[13].as<int>();
  p.created_by = row[14].c_str();
  p.created_at = row[15].c_str();
  p.spec.simple_update_fallback = row[16].as<bool>();
  return p;
}

common::Result<void> validatePackage(const FirmwarePackageSpec& s) {
  if (!detail::isCatalogName(s.name)) {
    return common::invalidArgument("invalid_field", "name must match [a-z0-9][a-z0-9._-]{0,63}",
                                   "name");
  }
  if (s.version.empty() || s.version.size() > 128) {
    return common::invalidArgument("invalid_field", "version must be 1..128 characters", "version");
  }
  if (!detail::isSha256Hex(s.sha256)) {
    return common::invalidArgument("invalid_field", "sha256 must be 64 lower-case hex digits",
                                   "sha256");
  }
  if (s.estimated_seconds <= 0) {
    return common::invalidArgument("invalid_field", "estimated_seconds must be positive",
                                   "estimated_seconds");
  }
  return detail::requireJson(s.match_json, "match");
}

common::Error packageNotFound(const std::string& name, const std::string& version) {
  return common::notFound("package_not_found",
                          "no firmware package " + name + " version " + version);
}

}  // namespace

common::Result<FirmwarePackageRegistration> registerFirmwarePackage(Database& db,
                                                                    const FirmwarePackageSpec& spec,
                                                                    const std::string& actor) {
  PROV_TRY(validatePackage(spec));
  FirmwarePackageSpec wanted = spec;
  wanted.match_json = normalisedJson(spec.match_json);
  using Out = FirmwarePackageRegistration;
  return detail::withTransaction(
      db, "register_firmware_package", [&](Tx& tx) -> common::Result<Out> {
        auto inserted = tx.exec(detail::kInsertPackage, wanted.name, wanted.version, wanted.vendor,
                                jsonList(wanted.models), wanted.component, wanted.match_json,
                                wanted.sha256, wanted.size, wanted.install_method, wanted.apply,
                                wanted.min_from_version, wanted.allow_downgrade,
                                wanted.estimated_seconds, actor, wanted.simple_update_fallback);
        if (!inserted.empty()) return Out{packageFromRow(inserted[0]), true};
        auto existing = tx.exec(detail::kSelectPackage, wanted.name, wanted.version);
        if (existing.empty())
          return packageNotFound(wanted.name, wanted.version);  // raced a delete
        Out out{packageFromRow(existing[0]), false};
        if (!(out.package.spec == wanted)) {
          return common::conflict("package_exists",
                                  "firmware package " + wanted.name + " " + wanted.version +
                                      " is already registered with other content; packages are "
                                      "immutable, register a new version",
                                  "version");
        }
        return out;
      });
}

common::Result<std::optional<FirmwarePackage>> findFirmwarePackage(Database& db,
                                                                   const std::string& name,
                                                                   const std::string& version) {
  using Found = std::optional<FirmwarePackage>;
  return detail::withRead(db, "find_firmware_package", [&](Tx& tx) -> common::Result<Found> {
    auto rows = tx.exec(detail::kSelectPackage, name, version);
    if (rows.empty()) return Found();
    return Found(packageFromRow(rows[0]));
  });
}

common::Result<FirmwarePackage> getFirmwarePackage(Database& db, const std::string& name,
                                                   const std::string& version) {
  PROV_ASSIGN(auto found, findFirmwarePackage(db, name, version));
  if (!found) return common::fail(packageNotFound(name, version));
  return std::move(*found);
}

common::Result<Page<FirmwarePackage>> listFirmwarePackages(Database& db,
                                                           const FirmwarePackageFilter& f) {
  const int limit = detail::clampLimit(f.page.limit);
  using Out = Page<FirmwarePackage>;
  return detail::withRead(db, "list_firmware_packages", [&](Tx& tx) -> common::Result<Out> {
    std::vector<FirmwarePackage> items;
    for (const auto& row : tx.exec(detail::kSelectPackagePage, f.name, f.component, f.model,
                                   f.page.after, limit + 1)) {
      items.push_back(packageFromRow(row));
    }
    return detail::makePage(std::move(items), limit);
  });
}

}  // namespace inventory
