// The part of NVML's C API the agent uses, declared here from the NVML reference (there is no
// nvml.h on build machines without a driver). Only types, constants and function-pointer types:
// the functions themselves are looked up in libnvidia-ml.so.1 at run time.
#pragma once

#include <cstdint>

namespace agent::cuda::nvml {

// nvmlReturn_t: an int-sized C enum. Only the values the agent branches on are named.
using Return = int;
inline constexpr Return kSuccess = 0;
inline constexpr Return kErrorNotSupported = 3;
inline constexpr Return kErrorTimeout = 10;

// Opaque handles (nvmlDevice_t, nvmlEventSet_t).
struct DeviceSt;
using Device = DeviceSt*;
struct EventSetSt;
using EventSet = EventSetSt*;

// nvmlMemory_t: bytes.
struct Memory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

// nvmlEventData_t.
struct EventData {
  Device device;
  unsigned long long event_type;
  unsigned long long event_data;  // the XID for XID events
  unsigned int gpu_instance_id;
  unsigned int compute_instance_id;
};

// Enum arguments (C enums are int-sized).
using EnableState = int;  // nvmlEnableState_t
inline constexpr EnableState kFeatureEnabled = 1;
using MemoryErrorType = int;  // nvmlMemoryErrorType_t
inline constexpr MemoryErrorType kMemoryErrorCorrected = 0;
inline constexpr MemoryErrorType kMemoryErrorUncorrected = 1;
using EccCounterType = int;  // nvmlEccCounterType_t
inline constexpr EccCounterType kVolatileEcc = 0;
inline constexpr EccCounterType kAggregateEcc = 1;
using TemperatureSensor = int;  // nvmlTemperatureSensors_t
inline constexpr TemperatureSensor kTemperatureGpu = 0;
using ClockType = int;  // nvmlClockType_t
inline constexpr ClockType kClockSm = 1;
inline constexpr ClockType kClockMem = 2;
using PageRetirementCause = int;  // nvmlPageRetirementCause_t
inline constexpr PageRetirementCause kRetiredMultipleSingleBit = 0;
inline constexpr PageRetirementCause kRetiredDoubleBit = 1;
using NvLinkErrorCounter = int;  // nvmlNvLinkErrorCounter_t
inline constexpr NvLinkErrorCounter kNvLinkReplay = 0;
inline constexpr NvLinkErrorCounter kNvLinkRecovery = 1;
inline constexpr NvLinkErrorCounter kNvLinkCrcFlit = 2;
inline constexpr unsigned int kNvLinkMaxLinks = 18;  // NVML_NVLINK_MAX_LINKS
inline constexpr Return kErrorInsufficientSize = 7;

inline constexpr unsigned long long kEventTypeXidCriticalError = 0x8;

// nvmlUtilization_t: percent of the last sample period.
struct Utilization {
  unsigned int gpu;
  unsigned int memory;
};

// nvmlFieldValue_t and the fields the monitor asks for: NVML_FI_DEV_MEMORY_TEMP and the PCIe
// error counts (NVML_FI_DEV_PCIE_COUNT_CORRECTABLE_ERRORS, ..._NON_FATAL_ERROR, ..._FATAL_ERROR;
// drivers from R550 have them, older ones answer "not supported" per field).
inline constexpr unsigned int kFieldMemoryTemperature = 82;
inline constexpr unsigned int kFieldPcieCorrectableErrors = 173;
inline constexpr unsigned int kFieldPcieNonFatalErrors = 179;
inline constexpr unsigned int kFieldPcieFatalErrors = 180;
using ValueType = int;  // nvmlValueType_t
inline constexpr ValueType kValueDouble = 0;
inline constexpr ValueType kValueUnsignedInt = 1;
inline constexpr ValueType kValueUnsignedLong = 2;
inline constexpr ValueType kValueUnsignedLongLong = 3;
inline constexpr ValueType kValueSignedLongLong = 4;
inline constexpr ValueType kValueSignedInt = 5;
union Value {
  double d;
  unsigned int ui;
  unsigned long ul;
  unsigned long long ull;
  long long sll;
  int si;
};
struct FieldValue {
  unsigned int field_id;
  unsigned int scope_id;
  long long timestamp;
  long long latency_usec;
  ValueType value_type;
  Return nvml_return;
  Value value;
};

// Clock throttle ("clocks event") reason bits.
inline constexpr std::uint64_t kThrottleSwPowerCap = 0x4;
inline constexpr std::uint64_t kThrottleHwSlowdown = 0x8;
inline constexpr std::uint64_t kThrottleSwThermal = 0x20;
inline constexpr std::uint64_t kThrottleHwThermal = 0x40;
inline constexpr std::uint64_t kThrottleHwPowerBrake = 0x80;

// Buffer sizes the reference recommends for the string queries.
inline constexpr unsigned int kSerialBufferSize = 30;
inline constexpr unsigned int kUuidBufferSize = 96;
inline constexpr unsigned int kNameBufferSize = 96;
inline constexpr unsigned int kDriverVersionBufferSize = 80;

extern "C" {
using InitFn = Return (*)();
using ShutdownFn = Return (*)();
using ErrorStringFn = const char* (*)(Return);
using DeviceGetCountFn = Return (*)(unsigned int*);
using DeviceGetHandleByIndexFn = Return (*)(unsigned int, Device*);
using DeviceGetStringFn = Return (*)(Device, char*, unsigned int);  // serial, UUID, name
using DeviceGetMemoryInfoFn = Return (*)(Device, Memory*);
using DeviceGetUintFn = Return (*)(Device, unsigned int*);  // PCIe link width / generation
using SystemGetDriverVersionFn = Return (*)(char*, unsigned int);
using DeviceGetEccModeFn = Return (*)(Device, EnableState*, EnableState*);
using DeviceGetTotalEccErrorsFn = Return (*)(Device, MemoryErrorType, EccCounterType,
                                             unsigned long long*);
using DeviceGetTemperatureFn = Return (*)(Device, TemperatureSensor, unsigned int*);
using DeviceGetThrottleReasonsFn = Return (*)(Device, unsigned long long*);
using DeviceGetPowerUsageFn = Return (*)(Device, unsigned int*);  // milliwatts
using DeviceGetClockInfoFn = Return (*)(Device, ClockType, unsigned int*);
using DeviceGetRemappedRowsFn = Return (*)(Device, unsigned int*, unsigned int*, unsigned int*,
                                           unsigned int*);
using DeviceGetRetiredPagesFn = Return (*)(Device, PageRetirementCause, unsigned int*,
                                           unsigned long long*);
using DeviceGetNvLinkErrorCounterFn = Return (*)(Device, unsigned int, NvLinkErrorCounter,
                                                 unsigned long long*);
using DeviceGetUtilizationFn = Return (*)(Device, Utilization*);
using DeviceGetFieldValuesFn = Return (*)(Device, int, FieldValue*);
using EventSetCreateFn = Return (*)(EventSet*);
using DeviceRegisterEventsFn = Return (*)(Device, unsigned long long, EventSet);
using EventSetWaitFn = Return (*)(EventSet, EventData*, unsigned int);
using EventSetFreeFn = Return (*)(EventSet);
}

// The resolved entry points of one loaded library.
struct Api {
  InitFn init = nullptr;                             // nvmlInit_v2
  ShutdownFn shutdown = nullptr;                     // nvmlShutdown
  ErrorStringFn error_string = nullptr;              // nvmlErrorString
  DeviceGetCountFn device_count = nullptr;           // nvmlDeviceGetCount_v2
  DeviceGetHandleByIndexFn device_handle = nullptr;  // nvmlDeviceGetHandleByIndex_v2
  DeviceGetStringFn serial = nullptr;
  DeviceGetStringFn uuid = nullptr;
  DeviceGetStringFn name = nullptr;
  DeviceGetMemoryInfoFn memory_info = nullptr;
  DeviceGetUintFn curr_pcie_width = nullptr;
  DeviceGetUintFn max_pcie_width = nullptr;
  DeviceGetUintFn curr_pcie_gen = nullptr;
  DeviceGetUintFn max_pcie_gen = nullptr;
  SystemGetDriverVersionFn driver_version = nullptr;
  DeviceGetEccModeFn ecc_mode = nullptr;
  DeviceGetTotalEccErrorsFn total_ecc_errors = nullptr;
  DeviceGetTemperatureFn temperature = nullptr;
  // nvmlDeviceGetCurrentClocksEventReasons on newer drivers, ...ThrottleReasons on older ones.
  DeviceGetThrottleReasonsFn throttle_reasons = nullptr;
  EventSetCreateFn event_set_create = nullptr;
  DeviceRegisterEventsFn register_events = nullptr;
  EventSetWaitFn event_set_wait = nullptr;  // nvmlEventSetWait_v2
  EventSetFreeFn event_set_free = nullptr;
  // What the resident monitor reads besides; null where the driver lacks it (remapped rows
  // before Ampere, NVLink counters on PCIe boards): the reading then leaves the field out.
  DeviceGetPowerUsageFn power_usage = nullptr;            // nvmlDeviceGetPowerUsage
  DeviceGetClockInfoFn clock_info = nullptr;              // nvmlDeviceGetClockInfo
  DeviceGetRemappedRowsFn remapped_rows = nullptr;        // nvmlDeviceGetRemappedRows
  DeviceGetRetiredPagesFn retired_pages = nullptr;        // nvmlDeviceGetRetiredPages
  DeviceGetNvLinkErrorCounterFn nvlink_errors = nullptr;  // nvmlDeviceGetNvLinkErrorCounter
  DeviceGetUintFn pcie_replay = nullptr;                  // nvmlDeviceGetPcieReplayCounter
  DeviceGetUtilizationFn utilization = nullptr;           // nvmlDeviceGetUtilizationRates
  DeviceGetFieldValuesFn field_values = nullptr;          // nvmlDeviceGetFieldValues
};

}  // namespace agent::cuda::nvml
