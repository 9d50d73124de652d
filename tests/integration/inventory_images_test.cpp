// The image catalog, channels with promote/rollback history, and hardware profiles, against a
// real PostgreSQL.
#include <catch2/catch.hpp>
#include <optional>
#include <thread>

#include "integration/inventory_test_support.hpp"
#include "inventory/images.hpp"

using namespace inventory;
using inventory_test::count;
using inventory_test::scalar;

namespace {

std::string digest(char c) {
  return std::string(64, c);
}

ImageRecord image(const std::string& name, const std::string& version, char seed = 'a') {
  ImageRecord r;
  r.name = name;
  r.version = version;
  r.description = "burn-in image";
  r.kernel_args = "console=ttyS0,115200";
  // Deliberately not in manifest order: the catalog keeps kernel, initrd, rootfs.
  r.artifacts = {{"rootfs", digest(seed), 3000, "rootfs.squashfs"},
                 {"kernel", digest(static_cast<char>(seed + 1)), 1000, "vmlinuz"},
                 {"initrd", digest(static_cast<char>(seed + 2)), 2000, "initrd.img"}};
  r.manifest_json = R"({"manifest":{"name":")" + name + R"("},"signature":{"key_id":"k1"}})";
  r.key_id = "k1";
  return r;
}

ImageRecord registered(Database& db, const std::string& name, const std::string& version) {
  auto r = registerImage(db, image(name, version), "release-bot");
  REQUIRE_OK(r);
  return r->image;
}

std::vector<std::string> versions(const std::vector<ImageRecord>& images) {
  std::vector<std::string> out;
  for (const auto& i : images) out.push_back(i.version);
  return out;
}

HardwareProfile profile(const std::string& name, const std::string& model) {
  HardwareProfile p;
  p.name = name;
  p.model = model;
  p.channel = "stable";
  p.burn_in_plan_json = R"({"min_fraction": 0.9})";
  p.expected_gpus = 8;
  return p;
}

}  // namespace

TEST_CASE("registerImage stores a version once and repeats are idempotent",
          "[integration][inventory][images]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;

  auto first = registerImage(db, image("hpc-burnin", "1.0.0"), "release-bot");
  REQUIRE_OK(first);
  CHECK(first->created);
  const auto& img = first->image;
  CHECK(img.id > 0);
  CHECK(img.registered_by == "release-bot");
  CHECK(img.key_id == "k1");
  CHECK(img.registered_at.back() == 'Z');
  REQUIRE(img.artifacts.size() == 3);
  CHECK(img.artifacts[0].kind == "kernel");
  CHECK(img.artifacts[1].kind == "initrd");
  CHECK(img.artifacts[2].kind == "rootfs");
  CHECK(img.artifacts[2].sha256 == digest('a'));
  CHECK(img.artifacts[2].size == 3000);
  CHECK(img.artifacts[2].file_name == "rootfs.squashfs");
  CHECK(img.manifest_json == image("hpc-burnin", "1.0.0").manifest_json);

  // The same manifest again (here re-signed: other document, same content) is the same image.
  auto again_input = image("hpc-burnin", "1.0.0");
  again_input.manifest_json = R"({"resigned":true})";
  auto again = registerImage(db, again_input, "someone-else");
  REQUIRE_OK(again);
  CHECK_FALSE(again->created);
  CHECK(again->image.id == img.id);
  CHECK(again->image.registered_by == "release-bot");
  CHECK(again->image.manifest_json == img.manifest_json);
  CHECK(count(inv.url, "images") == 1);
  CHECK(count(inv.url, "image_artifacts") == 3);

  SECTION("a different manifest under the same version is refused") {
    auto changed = image("hpc-burnin", "1.0.0");
    changed.artifacts[1].sha256 = digest('f');
    auto r = registerImage(db, changed, "release-bot");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind == common::ErrorKind::kConflict);
    CHECK(r.error().code == "image_version_exists");
    auto args = image("hpc-burnin", "1.0.0");
    args.kernel_args = "quiet";
    CHECK(registerImage(db, args, "release-bot").error().code == "image_version_exists");
    CHECK(count(inv.url, "image_artifacts") == 3);
  }
  SECTION("image rows cannot be changed") {
    CHECK_THROWS(scalar(inv.url, "UPDATE images SET kernel_args = 'x'"));
    CHECK_THROWS(scalar(inv.url, "UPDATE image_artifacts SET size = 1"));
  }
}

TEST_CASE("registerImage rejects malformed images naming the field",
          "[integration][inventory][images]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  auto bad = [&](ImageRecord r) { return registerImage(db, r, "bot"); };

  auto name = image("Bad Name", "1");
  CHECK(bad(name).error().code == "invalid_image_name");
  auto version = image("ok", "-1");
  CHECK(bad(version).error().code == "invalid_image_version");
  auto sha = image("ok", "1");
  sha.artifacts[1].sha256 = std::string(64, 'G');
  CHECK(bad(sha).error().code == "invalid_sha256");
  CHECK(bad(sha).error().field == "artifacts[1].sha256");
  auto size = image("ok", "1");
  size.artifacts[0].size = 0;
  CHECK(bad(size).error().field == "artifacts[0].size");
  auto kind = image("ok", "1");
  kind.artifacts[2].kind = "firmware";
  CHECK(bad(kind).error().code == "invalid_artifact_kind");
  auto twice = image("ok", "1");
  twice.artifacts[2].kind = "rootfs";
  CHECK(bad(twice).error().code == "duplicate_artifact_kind");
  CHECK(bad(twice).error().kind == common::ErrorKind::kInvalidArgument);
  CHECK(count(inv.url, "images") == 0);
}

TEST_CASE("getImage and listImages read the catalog newest first with pages",
          "[integration][inventory][images]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  registered(db, "hpc", "1");
  registered(db, "other", "9");
  registered(db, "hpc", "2");
  registered(db, "hpc", "3");

  auto got = getImage(db, "hpc", "2");
  REQUIRE_OK(got);
  CHECK(got->version == "2");
  CHECK(got->artifacts.size() == 3);
  auto missing = getImage(db, "hpc", "4");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().kind == common::ErrorKind::kNotFound);
  CHECK(missing.error().code == "image_not_found");

  auto page1 = listImages(db, "hpc", PageRequest{0, 2});
  REQUIRE_OK(page1);
  CHECK(versions(page1->items) == std::vector<std::string>{"3", "2"});
  REQUIRE(page1->next_after);
  CHECK(page1->items[0].artifacts.size() == 3);
  auto page2 = listImages(db, "hpc", PageRequest{*page1->next_after, 2});
  REQUIRE_OK(page2);
  CHECK(versions(page2->items) == std::vector<std::string>{"1"});
  CHECK_FALSE(page2->next_after);
  CHECK(page2->items[0].artifacts.size() == 3);

  auto all = listImages(db, "", PageRequest{0, 50});
  REQUIRE_OK(all);
  CHECK(versions(all->items) == std::vector<std::string>{"3", "2", "9", "1"});
}

TEST_CASE("channels promote and roll back through their history",
          "[integration][inventory][images][channels]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  for (const char* v : {"1", "2", "3"}) registered(db, "hpc", v);

  auto p1 = promoteChannel(db, "stable", {"hpc", "1"}, "alice", "first release");
  REQUIRE_OK(p1);
  CHECK(p1->name == "stable");
  CHECK(p1->image.version == "1");
  CHECK(p1->updated_by == "alice");
  REQUIRE_OK(promoteChannel(db, "stable", {"hpc", "2"}, "bob", "driver 550"));
  REQUIRE_OK(promoteChannel(db, "stable", {"hpc", "3"}, "carol", "driver 555"));

  auto same = promoteChannel(db, "stable", {"hpc", "3"}, "carol", "again");
  REQUIRE_FALSE(same.ok());
  CHECK(same.error().code == "channel_unchanged");
  auto no_image = promoteChannel(db, "stable", {"hpc", "7"}, "carol", "");
  CHECK(no_image.error().code == "image_not_found");
  CHECK(promoteChannel(db, "Stable!", {"hpc", "1"}, "carol", "").error().code ==
        "invalid_channel_name");

  auto r1 = rollbackChannel(db, "stable", std::nullopt, "dave", "555 hangs");
  REQUIRE_OK(r1);
  CHECK(r1->image.version == "2");
  CHECK(r1->updated_by == "dave");
  auto r2 = rollbackChannel(db, "stable", std::nullopt, "dave", "550 too");
  REQUIRE_OK(r2);
  CHECK(r2->image.version == "1");
  auto r3 = rollbackChannel(db, "stable", std::nullopt, "dave", "further");
  REQUIRE_FALSE(r3.ok());
  CHECK(r3.error().kind == common::ErrorKind::kConflict);
  CHECK(r3.error().code == "nothing_to_roll_back");

  auto current = getChannel(db, "stable");
  REQUIRE_OK(current);
  CHECK(current->image.version == "1");

  auto history = channelHistory(db, "stable");
  REQUIRE_OK(history);
  REQUIRE(history->size() == 5);  // three promotes, two rollbacks; the refused ones left none
  const auto& newest = (*history)[0];
  CHECK(newest.action == "rollback");
  CHECK(newest.from->version == "2");
  CHECK(newest.to.version == "1");
  CHECK(newest.actor == "dave");
  CHECK(newest.reason == "550 too");
  CHECK(newest.channel == "stable");
  CHECK(newest.at.back() == 'Z');
  CHECK((*history)[1].reason == "555 hangs");
  CHECK((*history)[2].action == "promote");
  CHECK((*history)[2].actor == "carol");
  const auto& oldest = (*history)[4];
  CHECK(oldest.action == "promote");
  CHECK_FALSE(oldest.from);
  CHECK(oldest.to.version == "1");
  CHECK(oldest.reason == "first release");
  CHECK((*history)[0].id > (*history)[1].id);

  SECTION("a promote after rollbacks starts a new line to roll back along") {
    REQUIRE_OK(promoteChannel(db, "stable", {"hpc", "3"}, "erin", "fixed"));
    auto back = rollbackChannel(db, "stable", std::nullopt, "erin", "not fixed");
    REQUIRE_OK(back);
    CHECK(back->image.version == "1");
  }
  SECTION("history rows cannot be changed or deleted") {
    CHECK_THROWS(scalar(inv.url, "UPDATE channel_events SET reason = 'edited'"));
    CHECK_THROWS(scalar(inv.url, "DELETE FROM channel_events"));
    CHECK(count(inv.url, "channel_events") == 5);
  }
}

TEST_CASE("rollback to an explicit target must be in the channel history",
          "[integration][inventory][images][channels]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;
  for (const char* v : {"1", "2", "3", "4"}) registered(db, "hpc", v);
  for (const char* v : {"1", "2", "3"}) {
    REQUIRE_OK(promoteChannel(db, "canary", {"hpc", v}, "alice", ""));
  }

  auto to1 = rollbackChannel(db, "canary", ImageRef{"hpc", "1"}, "bob", "straight to 1");
  REQUIRE_OK(to1);
  CHECK(to1->image.version == "1");
  // The rollback skipped 2: nothing is below 1 any more.
  CHECK(rollbackChannel(db, "canary", std::nullopt, "bob", "").error().code ==
        "nothing_to_roll_back");

  auto never = rollbackChannel(db, "canary", ImageRef{"hpc", "4"}, "bob", "");
  REQUIRE_FALSE(never.ok());
  CHECK(never.error().code == "not_in_channel_history");
  CHECK(rollbackChannel(db, "canary", ImageRef{"hpc", "1"}, "bob", "").error().code ==
        "channel_unchanged");
  CHECK(rollbackChannel(db, "canary", ImageRef{"hpc", "99"}, "bob", "").error().code ==
        "image_not_found");

  auto missing = rollbackChannel(db, "nope", std::nullopt, "bob", "");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().kind == common::ErrorKind::kNotFound);
  CHECK(missing.error().code == "channel_not_found");
  CHECK(channelHistory(db, "nope").error().code == "channel_not_found");
  CHECK(getChannel(db, "nope").error().code == "channel_not_found");

  REQUIRE_OK(promoteChannel(db, "beta", {"hpc", "4"}, "carol", ""));
  auto channels = listChannels(db);
  REQUIRE_OK(channels);
  REQUIRE(channels->size() == 2);
  CHECK((*channels)[0].name == "beta");
  CHECK((*channels)[0].image.version == "4");
  CHECK((*channels)[1].name == "canary");
}

TEST_CASE("concurrent promotes of one channel serialise and each is in the history",
          "[integration][inventory][images][channels]") {
  auto inv = inventory_test::freshInventory(8);
  auto& db = *inv.db;
  constexpr int kImages = 6;
  for (int i = 0; i < kImages; ++i) registered(db, "hpc", std::to_string(i));

  std::vector<std::optional<common::Result<Channel>>> results(kImages);
  std::vector<std::thread> threads;
  for (int i = 0; i < kImages; ++i) {
    threads.emplace_back([&, i] {
      results[i].emplace(promoteChannel(db, "stable", {"hpc", std::to_string(i)}, "t", ""));
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& r : results) REQUIRE_OK(*r);

  auto history = channelHistory(db, "stable");
  REQUIRE_OK(history);
  REQUIRE(history->size() == kImages);
  // Serialised: each promote moved the channel from where the previous one left it.
  for (std::size_t i = 0; i + 1 < history->size(); ++i) {
    REQUIRE((*history)[i].from);
    CHECK((*history)[i].from->version == (*history)[i + 1].to.version);
  }
  CHECK_FALSE((*history)[kImages - 1].from);
  CHECK(getChannel(db, "stable")->image.version == (*history)[0].to.version);
}

TEST_CASE("hardware profiles upsert by name with one profile per model",
          "[integration][inventory][images][profiles]") {
  auto inv = inventory_test::freshInventory();
  auto& db = *inv.db;

  auto created = upsertHardwareProfile(db, profile("dgx-h100", "DGX H100"), "alice");
  REQUIRE_OK(created);
  CHECK(created->updated_by == "alice");
  CHECK(created->expected_gpus == 8);
  CHECK(created->burn_in_plan_json.find("min_fraction") != std::string::npos);
  CHECK(created->updated_at.back() == 'Z');

  auto changed = profile("dgx-h100", "DGX H100");
  changed.channel = "canary";
  changed.burn_in_plan_json = "";  // the default plan
  auto updated = upsertHardwareProfile(db, changed, "bob");
  REQUIRE_OK(updated);
  CHECK(updated->channel == "canary");
  CHECK(updated->burn_in_plan_json == "{}");
  CHECK(updated->updated_by == "bob");
  CHECK(count(inv.url, "hardware_profiles") == 1);

  auto dup = upsertHardwareProfile(db, profile("h100-copy", "DGX H100"), "bob");
  REQUIRE_FALSE(dup.ok());
  CHECK(dup.error().kind == common::ErrorKind::kConflict);
  CHECK(dup.error().code == "duplicate_profile_model");
  CHECK(dup.error().field == "model");

  auto bad_plan = profile("hgx", "HGX B200");
  bad_plan.burn_in_plan_json = "{not json";
  CHECK(upsertHardwareProfile(db, bad_plan, "bob").error().field == "burn_in_plan");
  auto bad_name = profile("HGX B200", "HGX B200");
  CHECK(upsertHardwareProfile(db, bad_name, "bob").error().code == "invalid_profile_name");
  auto bad_channel = profile("hgx", "HGX B200");
  bad_channel.channel = "";
  CHECK(upsertHardwareProfile(db, bad_channel, "bob").error().code == "invalid_channel_name");
  REQUIRE_OK(upsertHardwareProfile(db, profile("hgx-b200", "HGX B200"), "bob"));

  auto found = profileForModel(db, "HGX B200");
  REQUIRE_OK(found);
  REQUIRE(*found);
  CHECK((*found)->name == "hgx-b200");
  auto none = profileForModel(db, "DGX A100");
  REQUIRE_OK(none);
  CHECK_FALSE(*none);

  auto all = listHardwareProfiles(db);
  REQUIRE_OK(all);
  REQUIRE(all->size() == 2);
  CHECK((*all)[0].name == "dgx-h100");
  CHECK(getHardwareProfile(db, "hgx-b200")->model == "HGX B200");

  REQUIRE_OK(deleteHardwareProfile(db, "hgx-b200", "bob"));
  CHECK(getHardwareProfile(db, "hgx-b200").error().code == "profile_not_found");
  CHECK(deleteHardwareProfile(db, "hgx-b200", "bob").error().code == "profile_not_found");
  CHECK_FALSE(*profileForModel(db, "HGX B200"));
}
