#include "agent/nominal.hpp"

#include <algorithm>
#include <cctype>
#include <string>

#include "agent/protocol.hpp"

namespace agent {
namespace {

// Achieved figures, not datasheet peaks: a healthy part sustains these in the burn-in tests, and
// the plan's threshold (85% by default) is taken against them.
// - compute: dense BF16 cuBLAS GEMM at large square sizes. H100 SXM's 989 TFLOP/s peak assumes
//   boost clocks that power capping does not hold under GEMM; published cuBLAS/MLPerf-style
//   measurements land near 700-800, so 750. H200 is the same GH100 die at the same 700 W: 750.
//   A100 SXM: 312 peak, ~280 achieved.
// - hbm: device-to-device cudaMemcpy counting read + write bytes. H100 SXM HBM3 3.35 TB/s peak,
//   ~2.9 TB/s achieved; H200 HBM3e 4.8 TB/s peak, ~4.2 TB/s; A100 80GB HBM2e 2.0 TB/s peak,
//   ~1.7 TB/s; A100 40GB HBM2 1.55 TB/s peak, ~1.35 TB/s.
// - pcie: pinned cudaMemcpy, one direction. Gen5 x16 is 63 GB/s raw, ~55 GB/s after protocol
//   overhead (bandwidthTest); Gen4 x16 is 31.5 GB/s raw, ~25 GB/s achieved.
// - peer: cudaMemcpyPeer one direction over NVLink through NVSwitch. NVLink4 (H100/H200) is
//   450 GB/s per direction, p2pBandwidthLatencyTest shows ~370; NVLink3 (A100) 300, ~240.
// - memory_mib: what NVML reports as total memory for the part.
const std::vector<NominalFigures> kTable = {
    {"h100-sxm", 750, 2900, 55, 55, 370, 81559},
    {"h200", 750, 4200, 55, 55, 370, 143771},
    {"a100-sxm", 280, 1700, 25, 25, 240, 81920},
    {"a100-sxm-40gb", 280, 1350, 25, 25, 240, 40960},
};

std::string upper(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

bool contains(const std::string& haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

// The table key for a reported model name; "" when we have no figures (H100 PCIe, H100 NVL, ...).
std::string_view keyFor(std::string_view model_name) {
  std::string name = upper(model_name);
  if (contains(name, "H200")) return "h200";
  if (contains(name, "H100") && (contains(name, "HBM3") || contains(name, "SXM"))) {
    return "h100-sxm";
  }
  if (contains(name, "A100") && contains(name, "SXM")) {
    return contains(name, "40GB") ? "a100-sxm-40gb" : "a100-sxm";
  }
  return "";
}

}  // namespace

const std::vector<NominalFigures>& nominalTable() {
  return kTable;
}

std::optional<NominalFigures> nominalFor(std::string_view model_name) {
  std::string_view key = keyFor(model_name);
  for (const auto& figures : kTable) {
    if (figures.model_key == key) return figures;
  }
  return std::nullopt;
}

std::optional<double> nominalValue(const NominalFigures& figures, std::string_view test) {
  if (test == kTestCompute) return figures.compute_tflops;
  if (test == kTestHbmBandwidth) return figures.hbm_gbps;
  if (test == kTestPcieH2D) return figures.pcie_h2d_gbps;
  if (test == kTestPcieD2H) return figures.pcie_d2h_gbps;
  if (test == kTestPeerBandwidth) return figures.peer_gbps;
  return std::nullopt;
}

}  // namespace agent
