#pragma once
// Numeric ids of every type the writer declares in its metadata. Event ids stay below 128 so each event's
// type id is one varint byte; jdk.ActiveSetting refers to events by these ids.
#include <cstdint>

namespace jfrbpf::jfr {

enum TypeId : uint64_t {
  kMetadataRecord = 0,
  kCheckpointRecord = 1,

  kCpuTimeSampleEvent = 20,
  kCpuTimeSamplesLostEvent,
  kMethodTimingEvent,
  kMethodTraceEvent,
  kActiveRecordingEvent,
  kActiveSettingEvent,
  kOsInformationEvent,
  kCpuInformationEvent,
  kJvmInformationEvent,
  kSampleLossEvent,
  kNoteEvent,
  kTruncatedStacksEvent,
  kThreadCpuTimeEvent,
  kOffCpuSampleEvent,
  kOffCpuSamplesLostEvent,
  kExecutionSampleEvent,
  kObjectAllocationSampleEvent,
  kJavaMonitorEnterEvent,
  kJavaMonitorWaitEvent,
  kThreadParkEvent,

  kBooleanType = 40,
  kIntType,
  kLongType,
  kStringType,

  kThreadType = 50,
  kThreadGroupType,
  kClassType,
  kClassLoaderType,
  kMethodType,
  kSymbolType,
  kPackageType,
  kModuleType,
  kStackTraceType,
  kStackFrameType,
  kFrameTypeType,
  kThreadStateType,

  kLabelAnnotation = 70,
  kDescriptionAnnotation,
  kNameAnnotation,
  kCategoryAnnotation,
  kExperimentalAnnotation,
  kContextualAnnotation,
  kContentTypeAnnotation,
  kTimestampAnnotation,
  kTimespanAnnotation,
  kDataAmountAnnotation,
  kUnsignedAnnotation,
  kMemoryAddressAnnotation,
  kPercentageAnnotation,
  kFrequencyAnnotation,
  kBooleanFlagAnnotation,
  kRelationalAnnotation,
  kJavaMonitorAddressAnnotation,

  kEnabledSetting = 90,
  kThresholdSetting,
  kStackTraceSetting,
  kPeriodSetting,
  kThrottleSetting,
  kFilterSetting,

  kProcessContextEvent = 100,  // ids 20-39 are taken
  kProcessResourceEvent,
};

}  // namespace jfrbpf::jfr
