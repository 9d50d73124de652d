#include "cuda/nvml_devices.hpp"

#include <type_traits>
#include <utility>

#include "cuda/gpu_identity.hpp"

namespace agent::cuda {
namespace {

// More XIDs than this in one sample means a GPU in trouble; the rest wait for the next sample.
constexpr int kMaxXidsPerSample = 256;
constexpr unsigned long long kMiB = 1024ULL * 1024ULL;

// Reads an unsigned counter that not every GPU has: "not supported" reads as 0.
template <class Fn, class... Args>
common::Result<unsigned long long> readOptional(const NvmlLibrary& nvml, const char* call,
                                                int label, Fn fn, Args... args) {
  unsigned long long value = 0;
  nvml::Return rc;
  if constexpr (std::is_invocable_v<Fn, Args..., unsigned long long*>) {
    rc = fn(args..., &value);
  } else {
    unsigned int narrow = 0;
    rc = fn(args..., &narrow);
    value = narrow;
  }
  if (rc == nvml::kErrorNotSupported) return 0ULL;
  PROV_TRY(nvml.check(rc, call, label));
  return value;
}

// One optional reading: a call the library lacks or the GPU does not support (or that fails)
// leaves the field out of the monitor's batch rather than failing the whole reading.
template <class T, class Fn, class... Args>
std::optional<T> readIf(Fn fn, Args... args) {
  if (fn == nullptr) return std::nullopt;
  T value{};
  if (fn(args..., &value) != nvml::kSuccess) return std::nullopt;
  return value;
}

std::optional<std::uint64_t> retiredPages(const nvml::Api& api, nvml::Device device) {
  if (api.retired_pages == nullptr) return std::nullopt;
  std::uint64_t total = 0;
  for (auto cause : {nvml::kRetiredMultipleSingleBit, nvml::kRetiredDoubleBit}) {
    unsigned int count = 0;  // 0: only the count is asked for
    unsigned long long unused = 0;
    const nvml::Return rc = api.retired_pages(device, cause, &count, &unused);
    if (rc != nvml::kSuccess && rc != nvml::kErrorInsufficientSize) return std::nullopt;
    total += count;
  }
  return total;
}

// Summed over the links that answer; none answering (a PCIe board) leaves it out.
std::optional<std::uint64_t> nvlinkErrors(const nvml::Api& api, nvml::Device device,
                                          nvml::NvLinkErrorCounter counter) {
  if (api.nvlink_errors == nullptr) return std::nullopt;
  std::optional<std::uint64_t> total;
  for (unsigned int link = 0; link < nvml::kNvLinkMaxLinks; ++link) {
    unsigned long long value = 0;
    if (api.nvlink_errors(device, link, counter, &value) != nvml::kSuccess) continue;
    total = total.value_or(0) + value;
  }
  return total;
}

// A field value as a number, whatever type the driver gives it in; nullopt when not supported.
std::optional<double> fieldNumber(const nvml::FieldValue& field) {
  if (field.nvml_return != nvml::kSuccess) return std::nullopt;
  switch (field.value_type) {
    case nvml::kValueDouble:
      return field.value.d;
    case nvml::kValueUnsignedInt:
      return field.value.ui;
    case nvml::kValueUnsignedLong:
      return static_cast<double>(field.value.ul);
    case nvml::kValueUnsignedLongLong:
      return static_cast<double>(field.value.ull);
    case nvml::kValueSignedLongLong:
      return static_cast<double>(field.value.sll);
    case nvml::kValueSignedInt:
      return field.value.si;
    default:
      return std::nullopt;
  }
}

std::optional<std::uint64_t> fieldCount(const nvml::FieldValue& field) {
  auto v = fieldNumber(field);
  if (!v || *v < 0) return std::nullopt;
  return static_cast<std::uint64_t>(*v);
}

// What only field values give (no dedicated call), in one call: the HBM's own temperature in
// whole degrees and the PCIe error counts.
void readFieldValues(const nvml::Api& api, nvml::Device device, HealthSample& sample) {
  if (api.field_values == nullptr) return;
  nvml::FieldValue fields[4]{};
  fields[0].field_id = nvml::kFieldMemoryTemperature;
  fields[1].field_id = nvml::kFieldPcieCorrectableErrors;
  fields[2].field_id = nvml::kFieldPcieNonFatalErrors;
  fields[3].field_id = nvml::kFieldPcieFatalErrors;
  if (api.field_values(device, 4, fields) != nvml::kSuccess) return;
  if (auto t = fieldNumber(fields[0])) sample.hbm_temperature_c = static_cast<int>(*t);
  sample.pcie_correctable_errors = fieldCount(fields[1]);
  sample.pcie_nonfatal_errors = fieldCount(fields[2]);
  sample.pcie_fatal_errors = fieldCount(fields[3]);
}

void readMonitorFields(const nvml::Api& api, nvml::Device device, HealthSample& sample) {
  if (auto mw = readIf<unsigned int>(api.power_usage, device)) sample.power_w = *mw / 1000.0;
  if (auto mhz = readIf<unsigned int>(api.clock_info, device, nvml::kClockSm)) {
    sample.sm_clock_mhz = static_cast<int>(*mhz);
  }
  sample.ecc_corrected_aggregate = readIf<unsigned long long>(
      api.total_ecc_errors, device, nvml::kMemoryErrorCorrected, nvml::kAggregateEcc);
  sample.ecc_uncorrected_aggregate = readIf<unsigned long long>(
      api.total_ecc_errors, device, nvml::kMemoryErrorUncorrected, nvml::kAggregateEcc);
  if (api.remapped_rows != nullptr) {
    unsigned int correctable = 0, uncorrectable = 0, pending = 0, failure = 0;
    if (api.remapped_rows(device, &correctable, &uncorrectable, &pending, &failure) ==
        nvml::kSuccess) {
      sample.remapped_correctable = correctable;
      sample.remapped_uncorrectable = uncorrectable;
      sample.remap_pending = pending != 0;
      sample.remap_failure = failure != 0;
    }
  }
  sample.retired_pages = retiredPages(api, device);
  sample.nvlink_crc_errors = nvlinkErrors(api, device, nvml::kNvLinkCrcFlit);
  sample.nvlink_replay_errors = nvlinkErrors(api, device, nvml::kNvLinkReplay);
  sample.nvlink_recovery_errors = nvlinkErrors(api, device, nvml::kNvLinkRecovery);
  readFieldValues(api, device, sample);
  if (auto mhz = readIf<unsigned int>(api.clock_info, device, nvml::kClockMem)) {
    sample.mem_clock_mhz = static_cast<int>(*mhz);
  }
  if (auto replays = readIf<unsigned int>(api.pcie_replay, device)) {
    sample.pcie_replay_errors = *replays;
  }
  if (auto busy = readIf<nvml::Utilization>(api.utilization, device)) {
    sample.gpu_utilization_pct = static_cast<int>(busy->gpu);
  }
}

}  // namespace

common::Result<std::unique_ptr<NvmlDevices>> NvmlDevices::open(std::shared_ptr<NvmlLibrary> nvml) {
  std::unique_ptr<NvmlDevices> devices(new NvmlDevices(std::move(nvml)));
  const NvmlLibrary& lib = *devices->nvml_;
  char version[nvml::kDriverVersionBufferSize] = {};
  PROV_TRY(lib.check(lib.api().driver_version(version, sizeof version),
                     "nvmlSystemGetDriverVersion", -1));
  devices->driver_version_ = version;
  unsigned int count = 0;
  PROV_TRY(lib.check(lib.api().device_count(&count), "nvmlDeviceGetCount_v2", -1));
  for (unsigned int i = 0; i < count; ++i) PROV_TRY(devices->addDevice(i));
  return devices;
}

common::Result<void> NvmlDevices::addDevice(unsigned int index) {
  const nvml::Api& api = nvml_->api();
  const int label = static_cast<int>(index);
  auto device = std::make_unique<Device>();
  PROV_TRY(nvml_->check(api.device_handle(index, &device->handle), "nvmlDeviceGetHandleByIndex_v2",
                        label));
  PROV_ASSIGN(std::string uuid, readString(api.uuid, "nvmlDeviceGetUUID", device->handle,
                                           nvml::kUuidBufferSize, label));
  PROV_TRY(nvml_->check(api.event_set_create(&device->events), "nvmlEventSetCreate", label));
  nvml::Return rc =
      api.register_events(device->handle, nvml::kEventTypeXidCriticalError, device->events);
  if (rc != nvml::kSuccess) {
    api.event_set_free(device->events);
    device->events = nullptr;
    if (rc != nvml::kErrorNotSupported) {
      return nvml_->check(rc, "nvmlDeviceRegisterEvents", label);
    }
  }
  devices_.push_back(std::move(device));
  uuids_.push_back(std::move(uuid));
  return common::success();
}

NvmlDevices::~NvmlDevices() {
  for (const auto& device : devices_) {
    if (device->events != nullptr) nvml_->api().event_set_free(device->events);
  }
}

common::Result<std::string> NvmlDevices::readString(nvml::DeviceGetStringFn fn, const char* call,
                                                    nvml::Device handle, unsigned int size,
                                                    int label) const {
  std::string buffer(size, '\0');
  nvml::Return rc = fn(handle, buffer.data(), size);
  if (rc == nvml::kErrorNotSupported) return std::string();
  PROV_TRY(nvml_->check(rc, call, label));
  buffer[size - 1] = '\0';  // never trust the peer to terminate it
  buffer.resize(buffer.find('\0'));
  return buffer;
}

common::Result<GpuFacts> NvmlDevices::facts(int nvml_index, int label) const {
  const nvml::Api& api = nvml_->api();
  const nvml::Device handle = devices_.at(static_cast<std::size_t>(nvml_index))->handle;
  GpuFacts facts;
  facts.index = label;
  facts.uuid = uuids_.at(static_cast<std::size_t>(nvml_index));
  facts.driver_version = driver_version_;
  PROV_ASSIGN(facts.serial, readString(api.serial, "nvmlDeviceGetSerial", handle,
                                       nvml::kSerialBufferSize, label));
  if (facts.serial.empty()) facts.serial = facts.uuid;
  PROV_ASSIGN(facts.model,
              readString(api.name, "nvmlDeviceGetName", handle, nvml::kNameBufferSize, label));
  nvml::Memory memory{};
  nvml::Return rc = api.memory_info(handle, &memory);
  if (rc != nvml::kErrorNotSupported) {
    PROV_TRY(nvml_->check(rc, "nvmlDeviceGetMemoryInfo", label));
    facts.memory_mib = memory.total / kMiB;
  }
  PROV_ASSIGN(auto width, readOptional(*nvml_, "nvmlDeviceGetCurrPcieLinkWidth", label,
                                       api.curr_pcie_width, handle));
  PROV_ASSIGN(auto max_width, readOptional(*nvml_, "nvmlDeviceGetMaxPcieLinkWidth", label,
                                           api.max_pcie_width, handle));
  PROV_ASSIGN(auto gen, readOptional(*nvml_, "nvmlDeviceGetCurrPcieLinkGeneration", label,
                                     api.curr_pcie_gen, handle));
  PROV_ASSIGN(auto max_gen, readOptional(*nvml_, "nvmlDeviceGetMaxPcieLinkGeneration", label,
                                         api.max_pcie_gen, handle));
  facts.pcie = PcieLink{static_cast<int>(width), static_cast<int>(max_width), static_cast<int>(gen),
                        static_cast<int>(max_gen)};
  nvml::EnableState current = 0;
  nvml::EnableState pending = 0;
  rc = api.ecc_mode(handle, &current, &pending);
  if (rc != nvml::kErrorNotSupported) {
    PROV_TRY(nvml_->check(rc, "nvmlDeviceGetEccMode", label));
    facts.ecc_enabled = current == nvml::kFeatureEnabled;
  }
  return facts;
}

common::Result<HealthSample> NvmlDevices::health(int nvml_index, int label) {
  const nvml::Api& api = nvml_->api();
  Device& device = *devices_.at(static_cast<std::size_t>(nvml_index));
  HealthSample sample;
  PROV_ASSIGN(sample.ecc_corrected_total,
              readOptional(*nvml_, "nvmlDeviceGetTotalEccErrors", label, api.total_ecc_errors,
                           device.handle, nvml::kMemoryErrorCorrected, nvml::kVolatileEcc));
  PROV_ASSIGN(sample.ecc_uncorrected_total,
              readOptional(*nvml_, "nvmlDeviceGetTotalEccErrors", label, api.total_ecc_errors,
                           device.handle, nvml::kMemoryErrorUncorrected, nvml::kVolatileEcc));
  unsigned int temperature = 0;
  PROV_TRY(nvml_->check(api.temperature(device.handle, nvml::kTemperatureGpu, &temperature),
                        "nvmlDeviceGetTemperature", label));
  sample.temperature_c = static_cast<int>(temperature);
  PROV_ASSIGN(auto reasons, readOptional(*nvml_, "nvmlDeviceGetCurrentClocksThrottleReasons", label,
                                         api.throttle_reasons, device.handle));
  sample.throttle_reasons = throttleReasonNames(reasons);
  sample.clock_event_mask = reasons;
  PROV_ASSIGN(sample.new_xid_events, drainXids(device, label));
  readMonitorFields(api, device.handle, sample);
  return sample;
}

common::Result<std::vector<int>> NvmlDevices::drainXids(Device& device, int label) {
  std::vector<int> xids;
  std::lock_guard lock(device.events_mutex);
  if (device.events == nullptr) return xids;
  for (int i = 0; i < kMaxXidsPerSample; ++i) {
    nvml::EventData event{};
    nvml::Return rc = nvml_->api().event_set_wait(device.events, &event, 0);
    if (rc == nvml::kErrorTimeout) break;  // nothing (more) queued
    PROV_TRY(nvml_->check(rc, "nvmlEventSetWait_v2", label));
    if ((event.event_type & nvml::kEventTypeXidCriticalError) != 0) {
      xids.push_back(static_cast<int>(event.event_data));
    }
  }
  return xids;
}

}  // namespace agent::cuda
