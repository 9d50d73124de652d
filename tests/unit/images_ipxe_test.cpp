#include <catch2/catch.hpp>

#include "images/ipxe.hpp"

namespace {

const std::string kKernelSha(64, 'a');
const std::string kInitrdSha(64, 'b');

images::BootScriptSpec goodSpec() {
  images::BootScriptSpec spec;
  spec.label = "node 42: ubuntu-burnin 2026.11.1";
  spec.kernel_url = "http://10.0.0.1:8080/boot/artifacts/" + kKernelSha;
  spec.kernel_sha256 = kKernelSha;
  spec.initrd_url = "http://10.0.0.1:8080/boot/artifacts/" + kInitrdSha;
  spec.initrd_sha256 = kInitrdSha;
  spec.image_kernel_args = "console=ttyS0,115200  quiet";
  spec.kernel_params = {{"provisioner.node", "42"}, {"provisioner.token", "agt_abc"}};
  spec.retry_seconds = 15;
  return spec;
}

std::string unsafeField(const images::BootScriptSpec& spec) {
  auto script = images::renderBootScript(spec);
  REQUIRE_FALSE(script.ok());
  CHECK(script.error().code == "unsafe_boot_parameter");
  return script.error().field;
}

}  // namespace

TEST_CASE("The boot script fetches checks and boots the image", "[unit][images]") {
  auto script = images::renderBootScript(goodSpec());
  REQUIRE(script.ok());
  const std::string expected =
      "#!ipxe\n"
      "echo node 42: ubuntu-burnin 2026.11.1\n"
      ":start\n"
      "kernel --name kernel http://10.0.0.1:8080/boot/artifacts/" +
      kKernelSha +
      " console=ttyS0,115200 quiet provisioner.node=42 provisioner.token=agt_abc || goto failed\n"
      "initrd --name initrd http://10.0.0.1:8080/boot/artifacts/" +
      kInitrdSha +
      " || goto failed\n"
      "sha256sum --set kernel_sha kernel\n"
      "iseq ${kernel_sha} " +
      kKernelSha +
      " || goto badsum\n"
      "sha256sum --set initrd_sha initrd\n"
      "iseq ${initrd_sha} " +
      kInitrdSha +
      " || goto badsum\n"
      "boot || goto failed\n"
      ":badsum\n"
      "echo Image checksum mismatch: refusing to boot, retrying in 15 seconds\n"
      "imgfree\n"
      "sleep 15\n"
      "goto start\n"
      ":failed\n"
      "echo Image download or boot failed, retrying in 15 seconds\n"
      "imgfree\n"
      "sleep 15\n"
      "goto start\n";
  CHECK(*script == expected);
}

TEST_CASE("Boot scripts refuse values iPXE or the kernel would interpret", "[unit][images]") {
  auto spec = goodSpec();
  spec.kernel_params[1].second = "agt_abc init=/bin/sh";
  CHECK(unsafeField(spec) == "kernel_params[1].value");
  spec = goodSpec();
  spec.kernel_params[0].second = "${net0/mac}";
  CHECK(unsafeField(spec) == "kernel_params[0].value");
  spec = goodSpec();
  spec.kernel_params[0].first = "a=b";
  CHECK(unsafeField(spec) == "kernel_params[0].key");
  spec = goodSpec();
  spec.kernel_url = "http://host/k\nshell";
  CHECK(unsafeField(spec) == "kernel_url");
  spec = goodSpec();
  spec.initrd_url = "http://host/i#x";
  CHECK(unsafeField(spec) == "initrd_url");
  spec = goodSpec();
  spec.initrd_url = "tftp://host/initrd";
  CHECK(unsafeField(spec) == "initrd_url");
  spec = goodSpec();
  spec.image_kernel_args = "quiet 'x'";
  CHECK(unsafeField(spec) == "image_kernel_args");
  spec = goodSpec();
  spec.label = "node \"1\"";
  CHECK(unsafeField(spec) == "label");
  spec = goodSpec();
  spec.kernel_sha256 = "abc";
  CHECK(unsafeField(spec) == "kernel_sha256");
  spec = goodSpec();
  spec.retry_seconds = 0;
  CHECK(unsafeField(spec) == "retry_seconds");
}

TEST_CASE("Retry and local boot scripts neutralise unsafe text", "[unit][images]") {
  CHECK(images::renderRetryScript("no image yet", 30, "http://svc/boot/ipxe?mac=aa:bb") ==
        "#!ipxe\n"
        ":retry\n"
        "echo no image yet\n"
        "echo Asking again in 30 seconds\n"
        "sleep 30\n"
        "chain --replace http://svc/boot/ipxe?mac=aa:bb || goto retry\n");
  const auto hostile = images::renderRetryScript("x $y\nshell", 0, "http://svc/a b$c");
  CHECK(hostile.find("echo x _y_shell\n") != std::string::npos);
  CHECK(hostile.find("sleep 1\n") != std::string::npos);
  CHECK(hostile.find("chain --replace http://svc/a%20b%24c || goto retry\n") != std::string::npos);
  // Only iPXE's own MAC setting survives unencoded, and only whole.
  CHECK(images::renderRetryScript("?", 5, "http://svc/boot/ipxe?mac=${net0/mac}")
            .find("chain --replace http://svc/boot/ipxe?mac=${net0/mac} || goto retry\n") !=
        std::string::npos);
  CHECK(images::renderRetryScript("?", 5, "http://svc/?m=${net0/mac}&x=${y}")
            .find("?m=${net0/mac}&x=%24{y}") != std::string::npos);
  CHECK(images::renderLocalBootScript("node 7 is ready") ==
        "#!ipxe\n"
        "echo node 7 is ready\n"
        "echo Booting from the local disk\n"
        "sanboot --no-describe --drive 0x80 || exit\n");
}
