// Channels: promote and roll back, each move appended to the channel's history in the same
// transaction, under a lock on the channel row so concurrent moves serialise.
#include <algorithm>

#include "catalog_values.hpp"
#include "db.hpp"
#include "inventory/images.hpp"
#include "queries_channels.hpp"

namespace inventory {
namespace {

using detail::Tx;

struct LockedChannel {
  Id id = 0;
  Id image_id = 0;
};

common::Result<void> validateChannelName(const std::string& channel) {
  if (!detail::isCatalogName(channel)) {
    return common::invalidArgument("invalid_channel_name",
                                   "channel must match [a-z0-9][a-z0-9._-]{0,63}", "channel");
  }
  return common::success();
}

common::Error channelNotFound(const std::string& channel) {
  return common::notFound("channel_not_found", "no channel named " + channel);
}

common::Result<Id> imageId(Tx& tx, const ImageRef& ref) {
  auto rows = tx.exec(detail::kSelectImageIdByRef, ref.name, ref.version);
  if (rows.empty()) {
    return common::notFound("image_not_found", "no image " + ref.name + " version " + ref.version);
  }
  return detail::id(rows[0][0]);
}

std::optional<LockedChannel> lockChannel(Tx& tx, const std::string& channel) {
  auto rows = tx.exec(detail::kLockChannel, channel);
  if (rows.empty()) return std::nullopt;
  return LockedChannel{detail::id(rows[0][0]), detail::id(rows[0][1])};
}

Channel channelFromRow(const pqxx::row& row) {
  return Channel{row[0].c_str(), ImageRef{row[1].c_str(), row[2].c_str()}, row[3].c_str(),
                 row[4].c_str()};
}

Channel readChannel(Tx& tx, const std::string& channel) {
  return channelFromRow(tx.exec(detail::kSelectChannelByName, channel)[0]);
}

void moveChannel(Tx& tx, const LockedChannel& c, const char* action, Id to,
                 const std::string& actor, const std::string& reason) {
  tx.exec(detail::kUpdateChannel, c.id, to, actor);
  tx.exec(detail::kInsertChannelEvent, c.id, action, c.image_id, to, actor, reason);
}

// The images a channel can roll back through, the current one on top: a promote pushes its
// image; a rollback pops back to its target, or pushes the target when it had been popped
// already (a roll "back" to a version later than the current one).
std::vector<Id> rollbackStack(const pqxx::result& moves) {
  std::vector<Id> stack;
  for (const auto& row : moves) {
    Id to = detail::id(row[1]);
    if (std::string_view(row[0].c_str()) == "rollback") {
      auto at = std::find(stack.rbegin(), stack.rend(), to);
      if (at != stack.rend()) {
        stack.erase(at.base(), stack.end());
        continue;
      }
    }
    stack.push_back(to);
  }
  return stack;
}

// Where a rollback goes: the explicit target, or the image below the current one.
common::Result<Id> rollbackTarget(Tx& tx, const LockedChannel& c,
                                  const std::optional<ImageRef>& target) {
  auto moves = tx.exec(detail::kSelectChannelMoves, c.id);
  if (!target) {
    auto stack = rollbackStack(moves);
    if (stack.size() < 2) {
      return common::conflict("nothing_to_roll_back",
                              "the channel has no earlier image to roll back to");
    }
    return stack[stack.size() - 2];
  }
  PROV_ASSIGN(Id to, imageId(tx, *target));
  if (to == c.image_id) {
    return common::conflict("channel_unchanged", "the channel already points at this image",
                            "target");
  }
  bool pointed_before = std::any_of(moves.begin(), moves.end(),
                                    [&](const auto& row) { return detail::id(row[1]) == to; });
  if (!pointed_before) {
    return common::conflict(
        "not_in_channel_history",
        "the channel never pointed at " + target->name + " version " + target->version, "target");
  }
  return to;
}

}  // namespace

common::Result<Channel> promoteChannel(Database& db, const std::string& channel,
                                       const ImageRef& image, const std::string& actor,
                                       const std::string& reason) {
  PROV_TRY(validateChannelName(channel));
  return detail::withTransaction(db, "promote_channel", [&](Tx& tx) -> common::Result<Channel> {
    PROV_ASSIGN(Id to, imageId(tx, image));
    auto locked = lockChannel(tx, channel);
    if (!locked) {
      auto inserted = tx.exec(detail::kInsertChannel, channel, to, actor);
      if (!inserted.empty()) {
        tx.exec(detail::kInsertChannelEvent, detail::id(inserted[0][0]), "promote",
                std::optional<Id>(), to, actor, reason);
        return readChannel(tx, channel);
      }
      locked = lockChannel(tx, channel);  // created concurrently: now it exists
      if (!locked) return common::internalError("channel vanished while promoting");
    }
    if (locked->image_id == to) {
      return common::conflict("channel_unchanged", "the channel already points at this image",
                              "image");
    }
    moveChannel(tx, *locked, "promote", to, actor, reason);
    return readChannel(tx, channel);
  });
}

common::Result<Channel> rollbackChannel(Database& db, const std::string& channel,
                                        const std::optional<ImageRef>& target,
                                        const std::string& actor, const std::string& reason) {
  PROV_TRY(validateChannelName(channel));
  return detail::withTransaction(db, "rollback_channel", [&](Tx& tx) -> common::Result<Channel> {
    auto locked = lockChannel(tx, channel);
    if (!locked) return channelNotFound(channel);
    PROV_ASSIGN(Id to, rollbackTarget(tx, *locked, target));
    moveChannel(tx, *locked, "rollback", to, actor, reason);
    return readChannel(tx, channel);
  });
}

common::Result<Channel> getChannel(Database& db, const std::string& channel) {
  return detail::withRead(db, "get_channel", [&](Tx& tx) -> common::Result<Channel> {
    auto rows = tx.exec(detail::kSelectChannelByName, channel);
    if (rows.empty()) return channelNotFound(channel);
    return channelFromRow(rows[0]);
  });
}

common::Result<std::vector<Channel>> listChannels(Database& db) {
  return detail::withRead(db, "list_channels", [&](Tx& tx) -> common::Result<std::vector<Channel>> {
    std::vector<Channel> channels;
    for (const auto& row : tx.exec(detail::kSelectChannels)) {
      channels.push_back(channelFromRow(row));
    }
    return channels;
  });
}

common::Result<std::vector<ChannelEvent>> channelHistory(Database& db, const std::string& channel) {
  return detail::withRead(db, "channel_history",
                          [&](Tx& tx) -> common::Result<std::vector<ChannelEvent>> {
                            auto rows = tx.exec(detail::kSelectChannelHistory, channel);
                            if (rows.empty())
                              return channelNotFound(channel);  // a channel always has its promote
                            std::vector<ChannelEvent> events;
                            for (const auto& row : rows) {
                              ChannelEvent e;
                              e.id = detail::id(row[0]);
                              e.channel = row[1].c_str();
                              e.action = row[2].c_str();
                              if (!row[3].is_null())
                                e.from = ImageRef{row[3].c_str(), row[4].c_str()};
                              e.to = ImageRef{row[5].c_str(), row[6].c_str()};
                              e.actor = row[7].c_str();
                              e.reason = row[8].c_str();
                              e.at = row[9].c_str();
                              events.push_back(std::move(e));
                            }
                            return events;
                          });
}

}  // namespace inventory
