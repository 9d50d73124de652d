-- Firmware packages installed by a multipart push (install_method multipart_push) may say that
-- a BMC without a MultipartHttpPushUri gets the package through SimpleUpdate instead; without
-- it such a node fails (docs/firmware.md).
ALTER TABLE firmware_packages
  ADD COLUMN simple_update_fallback boolean NOT NULL DEFAULT false;
