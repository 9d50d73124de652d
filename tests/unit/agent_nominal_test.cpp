#include <catch2/catch.hpp>

#include "agent/nominal.hpp"
#include "agent/protocol.hpp"

TEST_CASE("agent nominal figures match model names case-insensitively", "[agent]") {
  CHECK(agent::nominalFor("NVIDIA H100 80GB HBM3")->model_key == "h100-sxm");
  CHECK(agent::nominalFor("nvidia h100 sxm5 80gb")->model_key == "h100-sxm");
  CHECK(agent::nominalFor("NVIDIA H200")->model_key == "h200");
  CHECK(agent::nominalFor("NVIDIA A100-SXM4-80GB")->model_key == "a100-sxm");
  CHECK(agent::nominalFor("NVIDIA A100-SXM4-40GB")->model_key == "a100-sxm-40gb");
  CHECK_FALSE(agent::nominalFor("NVIDIA H100 PCIe").has_value());
  CHECK_FALSE(agent::nominalFor("NVIDIA A100-PCIE-40GB").has_value());
  CHECK_FALSE(agent::nominalFor("").has_value());
}

TEST_CASE("agent nominal values per test are the realistic achieved figures", "[agent]") {
  auto h100 = *agent::nominalFor("NVIDIA H100 80GB HBM3");
  CHECK(*agent::nominalValue(h100, agent::kTestCompute) == Approx(750));
  CHECK(*agent::nominalValue(h100, agent::kTestHbmBandwidth) == Approx(2900));
  CHECK(*agent::nominalValue(h100, agent::kTestPcieH2D) == Approx(55));
  CHECK(*agent::nominalValue(h100, agent::kTestPcieD2H) == Approx(55));
  CHECK(*agent::nominalValue(h100, agent::kTestPeerBandwidth) == Approx(370));
  CHECK_FALSE(agent::nominalValue(h100, "ecc").has_value());
  auto h200 = *agent::nominalFor("NVIDIA H200");
  CHECK(h200.hbm_gbps > h100.hbm_gbps);
  CHECK(h200.memory_mib > h100.memory_mib);
  auto a100 = *agent::nominalFor("NVIDIA A100-SXM4-80GB");
  CHECK(a100.compute_tflops == Approx(280));
  CHECK(a100.pcie_h2d_gbps == Approx(25));
  CHECK(a100.peer_gbps == Approx(240));
  CHECK(agent::nominalTable().size() >= 3);
}
