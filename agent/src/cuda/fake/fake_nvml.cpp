// A stand-in libnvidia-ml for unit tests on machines without a GPU: two H100s with fixed,
// distinct facts and counters (GPU 1 is degraded: x8 link, hot, throttled, one XID pending).
// Exports the old "ThrottleReasons" name only, so the loader's fallback is exercised too.
#include <cstdio>
#include <cstring>

#include "cuda/nvml_api.hpp"

using namespace agent::cuda::nvml;

namespace {

struct FakeGpu {
  const char* serial;
  const char* uuid;
  unsigned int link_width;
  unsigned int temperature;
  unsigned long long throttle;
  unsigned long long corrected;
  int xid;  // queued at each nvmlInit_v2, delivered once
  int pending_xid;
};

FakeGpu g_gpus[] = {
    {"1650123000001", "GPU-11111111-2222-3333-4444-555555555555", 16, 41, 0, 0, 0, 0},
    {"1650123000002", "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", 8, 91,
     kThrottleHwThermal | kThrottleSwPowerCap | 0x1 /* idle: not reported */, 7, 79, 0},
};
constexpr unsigned int kGpuCount = 2;
// Event sets: each remembers the one device registered on it.
struct FakeEventSet {
  bool used = false;
  FakeGpu* device = nullptr;
};
FakeEventSet g_event_sets[8];

FakeGpu* gpu(Device device) {
  auto* found = reinterpret_cast<FakeGpu*>(device);
  for (FakeGpu& candidate : g_gpus) {
    if (&candidate == found) return found;
  }
  return nullptr;
}

Return copyString(const char* text, char* out, unsigned int length) {
  if (std::strlen(text) + 1 > length) return 7;  // NVML_ERROR_INSUFFICIENT_SIZE
  std::snprintf(out, length, "%s", text);
  return kSuccess;
}

}  // namespace

extern "C" {

// Each load starts from the same state, whatever earlier tests drained.
Return nvmlInit_v2() {
  for (FakeGpu& candidate : g_gpus) candidate.pending_xid = candidate.xid;
  return kSuccess;
}
Return nvmlShutdown() {
  return kSuccess;
}
const char* nvmlErrorString(Return rc) {
  return rc == kErrorNotSupported ? "Not Supported" : "Fake";
}
Return nvmlDeviceGetCount_v2(unsigned int* count) {
  *count = kGpuCount;
  return kSuccess;
}
Return nvmlDeviceGetHandleByIndex_v2(unsigned int index, Device* device) {
  if (index >= kGpuCount) return 2;  // NVML_ERROR_INVALID_ARGUMENT
  *device = reinterpret_cast<Device>(&g_gpus[index]);
  return kSuccess;
}
Return nvmlDeviceGetSerial(Device device, char* out, unsigned int length) {
  return copyString(gpu(device)->serial, out, length);
}
Return nvmlDeviceGetUUID(Device device, char* out, unsigned int length) {
  return copyString(gpu(device)->uuid, out, length);
}
Return nvmlDeviceGetName(Device, char* out, unsigned int length) {
  return copyString("NVIDIA H100 80GB HBM3", out, length);
}
Return nvmlDeviceGetMemoryInfo(Device, Memory* memory) {
  memory->total = 81559ULL * 1024 * 1024;
  memory->free = memory->total;
  memory->used = 0;
  return kSuccess;
}
Return nvmlDeviceGetCurrPcieLinkWidth(Device device, unsigned int* width) {
  *width = gpu(device)->link_width;
  return kSuccess;
}
Return nvmlDeviceGetMaxPcieLinkWidth(Device, unsigned int* width) {
  *width = 16;
  return kSuccess;
}
Return nvmlDeviceGetCurrPcieLinkGeneration(Device, unsigned int* gen) {
  *gen = 5;
  return kSuccess;
}
Return nvmlDeviceGetMaxPcieLinkGeneration(Device, unsigned int* gen) {
  *gen = 5;
  return kSuccess;
}
Return nvmlSystemGetDriverVersion(char* out, unsigned int length) {
  return copyString("550.54.15", out, length);
}
Return nvmlDeviceGetEccMode(Device, EnableState* current, EnableState* pending) {
  *current = kFeatureEnabled;
  *pending = kFeatureEnabled;
  return kSuccess;
}
Return nvmlDeviceGetTotalEccErrors(Device device, MemoryErrorType type, EccCounterType counter,
                                   unsigned long long* count) {
  if (counter != kVolatileEcc && counter != kAggregateEcc) return 2;
  // The aggregate (InfoROM) count holds what earlier driver loads saw too.
  const unsigned long long earlier = counter == kAggregateEcc ? 100 : 0;
  *count = type == kMemoryErrorCorrected ? gpu(device)->corrected + earlier : 0;
  return kSuccess;
}
// The monitor's calls: GPU 1 is the degraded one (a pending remap, NVLink CRC errors).
Return nvmlDeviceGetPowerUsage(Device device, unsigned int* milliwatts) {
  *milliwatts = gpu(device) == &g_gpus[1] ? 612500 : 71250;
  return kSuccess;
}
Return nvmlDeviceGetClockInfo(Device device, int type, unsigned int* mhz) {
  if (type == kClockMem) {
    *mhz = 2619;
    return kSuccess;
  }
  if (type != kClockSm) return 2;
  *mhz = gpu(device) == &g_gpus[1] ? 1410 : 1980;
  return kSuccess;
}
Return nvmlDeviceGetPcieReplayCounter(Device device, unsigned int* replays) {
  *replays = gpu(device) == &g_gpus[1] ? 12 : 0;
  return kSuccess;
}
Return nvmlDeviceGetUtilizationRates(Device device, Utilization* busy) {
  busy->gpu = gpu(device) == &g_gpus[1] ? 100 : 3;
  busy->memory = gpu(device) == &g_gpus[1] ? 71 : 1;
  return kSuccess;
}
// The HBM temperature as the driver gives it (an unsigned int field value) and the PCIe error
// counts (unsigned long long). Any other field is not supported.
Return nvmlDeviceGetFieldValues(Device device, int count, FieldValue* values) {
  const bool degraded = gpu(device) == &g_gpus[1];
  for (int i = 0; i < count; ++i) {
    values[i].nvml_return = kSuccess;
    values[i].value_type = kValueUnsignedLongLong;
    switch (values[i].field_id) {
      case kFieldMemoryTemperature:
        values[i].value_type = kValueUnsignedInt;
        values[i].value.ui = degraded ? 95 : 38;
        break;
      case kFieldPcieCorrectableErrors:
        values[i].value.ull = degraded ? 41 : 0;
        break;
      case kFieldPcieNonFatalErrors:
        values[i].value.ull = degraded ? 2 : 0;
        break;
      case kFieldPcieFatalErrors:
        values[i].value.ull = 0;
        break;
      default:
        values[i].nvml_return = kErrorNotSupported;
    }
  }
  return kSuccess;
}
Return nvmlDeviceGetRemappedRows(Device device, unsigned int* correctable,
                                 unsigned int* uncorrectable, unsigned int* pending,
                                 unsigned int* failure) {
  const bool degraded = gpu(device) == &g_gpus[1];
  *correctable = degraded ? 3 : 0;
  *uncorrectable = 0;
  *pending = degraded ? 1 : 0;
  *failure = 0;
  return kSuccess;
}
// Page retirement is the pre-Ampere mechanism: an H100 does not support it.
Return nvmlDeviceGetRetiredPages(Device, int, unsigned int*, unsigned long long*) {
  return kErrorNotSupported;
}
// Links 0-17; only even links count errors on GPU 1, 2 CRC flits each.
Return nvmlDeviceGetNvLinkErrorCounter(Device device, unsigned int link, int counter,
                                       unsigned long long* value) {
  if (link >= kNvLinkMaxLinks) return 2;
  *value = gpu(device) == &g_gpus[1] && counter == kNvLinkCrcFlit && link % 2 == 0 ? 2 : 0;
  return kSuccess;
}
Return nvmlDeviceGetTemperature(Device device, TemperatureSensor sensor, unsigned int* value) {
  if (sensor != kTemperatureGpu) return 2;
  *value = gpu(device)->temperature;
  return kSuccess;
}
Return nvmlDeviceGetCurrentClocksThrottleReasons(Device device, unsigned long long* reasons) {
  *reasons = gpu(device)->throttle;
  return kSuccess;
}
Return nvmlEventSetCreate(EventSet* set) {
  for (FakeEventSet& slot : g_event_sets) {
    if (!slot.used) {
      slot = FakeEventSet{true, nullptr};
      *set = reinterpret_cast<EventSet>(&slot);
      return kSuccess;
    }
  }
  return 20;  // NVML_ERROR_MEMORY
}
Return nvmlDeviceRegisterEvents(Device device, unsigned long long types, EventSet set) {
  if (gpu(device) == nullptr || types != kEventTypeXidCriticalError) return 2;
  reinterpret_cast<FakeEventSet*>(set)->device = gpu(device);
  return kSuccess;
}
Return nvmlEventSetWait_v2(EventSet set, EventData* data, unsigned int) {
  FakeGpu* device = reinterpret_cast<FakeEventSet*>(set)->device;
  if (device == nullptr || device->pending_xid == 0) return kErrorTimeout;
  data->device = reinterpret_cast<Device>(device);
  data->event_type = kEventTypeXidCriticalError;
  data->event_data = static_cast<unsigned long long>(device->pending_xid);
  device->pending_xid = 0;
  return kSuccess;
}
Return nvmlEventSetFree(EventSet set) {
  *reinterpret_cast<FakeEventSet*>(set) = FakeEventSet{};
  return kSuccess;
}

}  // extern "C"
