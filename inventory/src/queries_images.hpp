// SQL of the image catalog: immutable image versions and their artifacts.
#pragma once

#include "db.hpp"

// Columns read by imageFromRow() (images.cpp).
#define INVENTORY_IMAGE_COLUMNS                                                       \
  "i.id, i.name, i.version, i.description, i.kernel_args, i.manifest_json, i.key_id," \
  " i.registered_by, iso8601(i.registered_at)"

namespace inventory::detail {

// Nothing is inserted when the version exists; the caller then compares with what is stored.
constexpr Query kInsertImage{"insert_image", R"(
  INSERT INTO images (name, version, description, kernel_args, manifest_json, key_id,
                      registered_by)
  VALUES ($1, $2, $3, $4, $5, $6, $7)
  ON CONFLICT ON CONSTRAINT images_name_version_key DO NOTHING
  RETURNING id)"};
constexpr Query kInsertImageArtifact{"insert_image_artifact", R"(
  INSERT INTO image_artifacts (image_id, kind, sha256, size, file_name)
  VALUES ($1, $2, $3, $4, $5))"};
constexpr Query kSelectImageByRef{"select_image_by_ref",
                                  "SELECT " INVENTORY_IMAGE_COLUMNS
                                  " FROM images i WHERE i.name = $1 AND i.version = $2"};
constexpr Query kSelectImageById{
    "select_image_by_id", "SELECT " INVENTORY_IMAGE_COLUMNS " FROM images i WHERE i.id = $1"};
// Newest first; `after` 0 starts at the newest.
constexpr Query kSelectImagePage{"select_image_page", "SELECT " INVENTORY_IMAGE_COLUMNS
                                                      " FROM images i"
                                                      " WHERE ($1 = '' OR i.name = $1)"
                                                      " AND ($2::bigint = 0 OR i.id < $2::bigint)"
                                                      " ORDER BY i.id DESC LIMIT $3"};
// Artifacts of several images ($1 a bigint[] literal), in manifest order within an image.
constexpr Query kSelectImageArtifacts{"select_image_artifacts", R"(
  SELECT image_id, kind, sha256, size, file_name
    FROM image_artifacts
   WHERE image_id = ANY ($1::bigint[])
   ORDER BY image_id, array_position(ARRAY['kernel', 'initrd', 'rootfs'], kind))"};

}  // namespace inventory::detail
