// What a hardware profile asks of a node, as the profile API reads it: BIOS settings, minimum
// firmware and the GPU model. Each is validated here so the lifecycle never meets a bad one.
#pragma once

#include <string>

#include "common/result.hpp"
#include "provisioner/http/json_input.hpp"

namespace provisioner::api {

// "bios_settings": {"Attribute": string | number | boolean, ...} (at most 512); "{}" when absent.
common::Result<std::string> biosSettingsField(const http::FieldReader& in);
// "min_firmware": [{"match", "version", "image_uri" (http(s)://)}] (at most 64); "[]" when absent.
common::Result<std::string> minFirmwareField(const http::FieldReader& in);

}  // namespace provisioner::api
