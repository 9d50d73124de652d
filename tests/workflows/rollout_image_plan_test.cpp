// The image rollout's pure decisions: the image texts of the plan, what recover_image does after
// each failure, and which channel a completed campaign promotes.
#include <catch2/catch.hpp>

#include "rollout/image_plan.hpp"

using nlohmann::json;
using namespace workflows::rollout;

TEST_CASE("image texts of the plan parse into name and version", "[rollout][image]") {
  CHECK(parseImageText("ubuntu 24.04.2") == ImageVersion{"ubuntu", "24.04.2"});
  CHECK_FALSE(parseImageText(""));
  CHECK_FALSE(parseImageText("ubuntu"));
  CHECK_FALSE(parseImageText("ubuntu "));
  CHECK_FALSE(parseImageText(" 24.04"));
  CHECK_FALSE(parseImageText("a b c"));
  const json data = {{"to", toJson(ImageVersion{"ubuntu", "24.04.2"})},
                     {"from", nullptr},
                     {"bad", {{"name", "ubuntu"}}}};
  CHECK(imageAt(data, "to") == ImageVersion{"ubuntu", "24.04.2"});
  CHECK_FALSE(imageAt(data, "from"));
  CHECK_FALSE(imageAt(data, "bad"));
  CHECK_FALSE(imageAt(data, "missing"));
}

TEST_CASE("recover_image boots the previous image only after the new one was booted",
          "[rollout][image]") {
  SECTION("a failed drain changed nothing: resumed, failed") {
    auto d = decideImageRecovery("drain", "", true);
    CHECK(d.action == ImageRecovery::kResume);
    CHECK(d.campaign_state == "failed");
  }
  SECTION("the new image did not come up: back to the previous one, rolled_back") {
    auto d = decideImageRecovery("quick_check", "new", true);
    CHECK(d.action == ImageRecovery::kBootPrevious);
    CHECK(d.campaign_state == "rolled_back");
  }
  SECTION("no previous image known: quarantined") {
    auto d = decideImageRecovery("quick_check", "new", false);
    CHECK(d.action == ImageRecovery::kQuarantine);
    CHECK(d.campaign_state == "failed");
  }
  SECTION("the previous image did not come up either: quarantined, rollback_failed") {
    auto d = decideImageRecovery("check_previous", "previous", true);
    CHECK(d.action == ImageRecovery::kQuarantine);
    CHECK(d.campaign_state == "rollback_failed");
  }
  SECTION("undrain failing is reported, never another boot") {
    CHECK(decideImageRecovery("undrain", "new", true).action == ImageRecovery::kReportFailed);
    CHECK(decideImageRecovery("undrain", "previous", true).action == ImageRecovery::kReportFailed);
  }
}

TEST_CASE("only an image campaign with a channel and version promotes one", "[rollout][image]") {
  workflows::campaign::CampaignSpec spec;
  spec.kind = "image";
  spec.image_name = "ubuntu";
  spec.image_version = "24.04.2";
  CHECK_FALSE(channelToPromote(spec));
  spec.image_channel = "gpu-stable";
  CHECK(channelToPromote(spec) == std::optional<std::string>("gpu-stable"));
  spec.kind = "firmware";
  CHECK_FALSE(channelToPromote(spec));
}
