// Nominal burn-in figures per GPU model: what a healthy part of that model reaches in each test.
// The one place these numbers live: the simulated backend draws around them, the verdict
// compares against them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agent {

struct NominalFigures {
  std::string model_key;      // "h100-sxm", "h200", "a100-sxm"
  double compute_tflops = 0;  // dense BF16 GEMM through cuBLAS
  double hbm_gbps = 0;        // device-to-device copy, read + write bytes per second
  double pcie_h2d_gbps = 0;
  double pcie_d2h_gbps = 0;
  double peer_gbps = 0;  // NVLink peer copy, one direction
  std::uint64_t memory_mib = 0;
};

// Maps a reported model name ("NVIDIA H100 80GB HBM3", "NVIDIA H200", "NVIDIA A100-SXM4-80GB")
// to its figures; nullopt for a model we have no figures for.
std::optional<NominalFigures> nominalFor(std::string_view model_name);
// The nominal value of `test` ("compute", ...) for that model; nullopt when unknown.
std::optional<double> nominalValue(const NominalFigures& figures, std::string_view test);
const std::vector<NominalFigures>& nominalTable();

}  // namespace agent
