// SQL of channels (a name pointing at an image) and their append-only promote/rollback history.
#pragma once

#include "db.hpp"

// Columns read by channelFromRow() (channels.cpp).
#define INVENTORY_CHANNEL_COLUMNS "c.name, i.name, i.version, c.updated_by, iso8601(c.updated_at)"

namespace inventory::detail {

constexpr Query kSelectImageIdByRef{"select_image_id_by_ref",
                                    "SELECT id FROM images WHERE name = $1 AND version = $2"};
// Serialises promotes and rollbacks of one channel.
constexpr Query kLockChannel{"lock_channel",
                             "SELECT id, image_id FROM channels WHERE name = $1 FOR UPDATE"};
// Two first promotes may race: the loser inserts nothing and then locks the winner's row.
constexpr Query kInsertChannel{"insert_channel", R"(
  INSERT INTO channels (name, image_id, updated_by) VALUES ($1, $2, $3)
  ON CONFLICT ON CONSTRAINT channels_name_key DO NOTHING
  RETURNING id)"};
constexpr Query kUpdateChannel{"update_channel", R"(
  UPDATE channels SET image_id = $2, updated_by = $3, updated_at = now() WHERE id = $1)"};
constexpr Query kInsertChannelEvent{"insert_channel_event", R"(
  INSERT INTO channel_events (channel_id, action, from_image_id, to_image_id, actor, reason)
  VALUES ($1, $2, $3, $4, $5, $6))"};
constexpr Query kSelectChannelMoves{"select_channel_moves",
                                    "SELECT action, to_image_id FROM channel_events "
                                    "WHERE channel_id = $1 ORDER BY id"};
constexpr Query kSelectChannelByName{"select_channel_by_name",
                                     "SELECT " INVENTORY_CHANNEL_COLUMNS
                                     " FROM channels c JOIN images i ON i.id = c.image_id"
                                     " WHERE c.name = $1"};
constexpr Query kSelectChannels{"select_channels",
                                "SELECT " INVENTORY_CHANNEL_COLUMNS
                                " FROM channels c JOIN images i ON i.id = c.image_id"
                                " ORDER BY c.name"};
constexpr Query kSelectChannelHistory{"select_channel_history", R"(
  SELECT e.id, c.name, e.action, fi.name, fi.version, ti.name, ti.version, e.actor, e.reason,
         iso8601(e.at)
    FROM channel_events e
    JOIN channels c ON c.id = e.channel_id
    LEFT JOIN images fi ON fi.id = e.from_image_id
    JOIN images ti ON ti.id = e.to_image_id
   WHERE c.name = $1
   ORDER BY e.id DESC)"};

}  // namespace inventory::detail
