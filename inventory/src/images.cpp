// The image catalog: registering verified manifests as immutable versions, and reading them.
#include "inventory/images.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "catalog_values.hpp"
#include "db.hpp"
#include "queries_images.hpp"
#include "values.hpp"

namespace inventory {
namespace {

using detail::Tx;

constexpr const char* kArtifactKinds[] = {"kernel", "initrd", "rootfs"};

int kindRank(const std::string& kind) {
  for (int i = 0; i < 3; ++i) {
    if (kind == kArtifactKinds[i]) return i;
  }
  return 3;
}

std::vector<ImageArtifactRecord> sortedArtifacts(std::vector<ImageArtifactRecord> artifacts) {
  std::stable_sort(artifacts.begin(), artifacts.end(), [](const auto& a, const auto& b) {
    return kindRank(a.kind) < kindRank(b.kind);
  });
  return artifacts;
}

common::Result<void> validateArtifacts(const std::vector<ImageArtifactRecord>& artifacts) {
  std::set<std::string> kinds;
  for (std::size_t i = 0; i < artifacts.size(); ++i) {
    const auto& a = artifacts[i];
    std::string at = "artifacts[" + std::to_string(i) + "].";
    if (kindRank(a.kind) > 2) {
      return common::invalidArgument("invalid_artifact_kind",
                                     "artifact kind must be kernel, initrd or rootfs", at + "kind");
    }
    if (!kinds.insert(a.kind).second) {
      return common::invalidArgument("duplicate_artifact_kind",
                                     "the image has two " + a.kind + " artifacts", at + "kind");
    }
    if (!detail::isSha256Hex(a.sha256)) {
      return common::invalidArgument("invalid_sha256", "sha256 must be 64 lower-case hex digits",
                                     at + "sha256");
    }
    if (a.size <= 0) {
      return common::invalidArgument("invalid_size", "size must be positive", at + "size");
    }
  }
  return common::success();
}

common::Result<void> validateImage(const ImageRecord& image) {
  if (!detail::isCatalogName(image.name)) {
    return common::invalidArgument("invalid_image_name",
                                   "name must match [a-z0-9][a-z0-9._-]{0,63}", "name");
  }
  if (!detail::isImageVersion(image.version)) {
    return common::invalidArgument(
        "invalid_image_version", "version must match [A-Za-z0-9][A-Za-z0-9._+-]{0,63}", "version");
  }
  if (image.manifest_json.empty()) {
    return common::invalidArgument("missing_field", "the signed manifest is required",
                                   "manifest_json");
  }
  return validateArtifacts(image.artifacts);
}

bool sameArtifact(const ImageArtifactRecord& a, const ImageArtifactRecord& b) {
  return a.kind == b.kind && a.sha256 == b.sha256 && a.size == b.size && a.file_name == b.file_name;
}

// What a manifest signs (beyond name and version, which matched already): a re-signature of the
// same content is the same image.
bool sameManifest(const ImageRecord& stored, const ImageRecord& offered,
                  const std::vector<ImageArtifactRecord>& offered_artifacts) {
  return stored.description == offered.description && stored.kernel_args == offered.kernel_args &&
         std::equal(stored.artifacts.begin(), stored.artifacts.end(), offered_artifacts.begin(),
                    offered_artifacts.end(), sameArtifact);
}

ImageRecord imageFromRow(const pqxx::row& row) {
  ImageRecord r;
  r.id = detail::id(row[0]);
  r.name = row[1].c_str();
  r.version = row[2].c_str();
  r.description = row[3].c_str();
  r.kernel_args = row[4].c_str();
  r.manifest_json = row[5].c_str();
  r.key_id = row[6].c_str();
  r.registered_by = row[7].c_str();
  r.registered_at = row[8].c_str();
  return r;
}

// Fills the artifacts of every image with one query.
void attachArtifacts(Tx& tx, std::vector<ImageRecord>& images) {
  if (images.empty()) return;
  std::map<Id, ImageRecord*> by_id;
  std::string ids = "{";
  for (auto& image : images) {
    if (ids.size() > 1) ids.push_back(',');
    ids += std::to_string(image.id);
    by_id[image.id] = &image;
  }
  ids.push_back('}');
  for (const auto& row : tx.exec(detail::kSelectImageArtifacts, ids)) {
    ImageArtifactRecord a{row[1].c_str(), row[2].c_str(), row[3].as<std::int64_t>(),
                          row[4].c_str()};
    by_id.at(detail::id(row[0]))->artifacts.push_back(std::move(a));
  }
}

std::optional<ImageRecord> readImage(Tx& tx, const pqxx::result& rows) {
  if (rows.empty()) return std::nullopt;
  std::vector<ImageRecord> one{imageFromRow(rows[0])};
  attachArtifacts(tx, one);
  return std::move(one[0]);
}

common::Error imageNotFound(const std::string& name, const std::string& version) {
  return common::notFound("image_not_found", "no image " + name + " version " + version);
}

}  // namespace

common::Result<ImageRegistration> registerImage(Database& db, const ImageRecord& image,
                                                const std::string& actor) {
  PROV_TRY(validateImage(image));
  const auto artifacts = sortedArtifacts(image.artifacts);
  return detail::withTransaction(
      db, "register_image", [&](Tx& tx) -> common::Result<ImageRegistration> {
        auto inserted = tx.exec(detail::kInsertImage, image.name, image.version, image.description,
                                image.kernel_args, image.manifest_json, image.key_id, actor);
        if (inserted.empty()) {
          auto existing =
              readImage(tx, tx.exec(detail::kSelectImageByRef, image.name, image.version));
          if (!existing) return common::internalError("image vanished while registering");
          if (!sameManifest(*existing, image, artifacts)) {
            return common::conflict("image_version_exists",
                                    "image " + image.name + " version " + image.version +
                                        " is already registered with a different manifest",
                                    "version");
          }
          return ImageRegistration{std::move(*existing), false};
        }
        Id image_id = detail::id(inserted[0][0]);
        for (const auto& a : artifacts) {
          tx.exec(detail::kInsertImageArtifact, image_id, a.kind, a.sha256, a.size, a.file_name);
        }
        return ImageRegistration{*readImage(tx, tx.exec(detail::kSelectImageById, image_id)), true};
      });
}

common::Result<ImageRecord> getImage(Database& db, const std::string& name,
                                     const std::string& version) {
  return detail::withRead(db, "get_image", [&](Tx& tx) -> common::Result<ImageRecord> {
    auto image = readImage(tx, tx.exec(detail::kSelectImageByRef, name, version));
    if (!image) return imageNotFound(name, version);
    return std::move(*image);
  });
}

common::Result<Page<ImageRecord>> listImages(Database& db, const std::string& name,
                                             PageRequest page) {
  int limit = detail::clampLimit(page.limit);
  return detail::withRead(db, "list_images", [&](Tx& tx) -> common::Result<Page<ImageRecord>> {
    std::vector<ImageRecord> images;
    for (const auto& row : tx.exec(detail::kSelectImagePage, name, page.after, limit + 1)) {
      images.push_back(imageFromRow(row));
    }
    auto result = detail::makePage(std::move(images), limit);
    attachArtifacts(tx, result.items);
    return result;
  });
}

}  // namespace inventory
