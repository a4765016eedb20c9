#include "formats/jfr/writer/metadata_schema.h"

#include <algorithm>
#include <initializer_list>
#include <iterator>
#include <string>
#include <utility>

#include "formats/jfr/writer/metadata_element.h"

// Labels, descriptions, annotation order, settings and @Experimental follow Temurin 25.0.3's own metadata
// (jfr metadata / raw metadata event of a JDK 25 recording), so tools treat these events exactly like the
// JVM's.
namespace jfrbpf::jfr {
namespace {

using Element = MetadataElement;
using Elements = std::initializer_list<Element>;

constexpr std::string_view kEventSuperType = "jdk.jfr.Event";
constexpr std::string_view kAnnotationSuperType = "java.lang.annotation.Annotation";
constexpr std::string_view kSettingSuperType = "jdk.jfr.SettingControl";

constexpr std::pair<std::string_view, TypeId> kEventTypes[] = {
    {"jdk.CPUTimeSample", kCpuTimeSampleEvent},
    {"jdk.ExecutionSample", kExecutionSampleEvent},
    {"jdk.ObjectAllocationSample", kObjectAllocationSampleEvent},
    {"jdk.JavaMonitorEnter", kJavaMonitorEnterEvent},
    {"jdk.JavaMonitorWait", kJavaMonitorWaitEvent},
    {"jdk.ThreadPark", kThreadParkEvent},
    {"jdk.CPUTimeSamplesLost", kCpuTimeSamplesLostEvent},
    {"jdk.MethodTiming", kMethodTimingEvent},
    {"jdk.MethodTrace", kMethodTraceEvent},
    {"jdk.ActiveRecording", kActiveRecordingEvent},
    {"jdk.ActiveSetting", kActiveSettingEvent},
    {"jdk.OSInformation", kOsInformationEvent},
    {"jdk.CPUInformation", kCpuInformationEvent},
    {"jdk.JVMInformation", kJvmInformationEvent},
    {"jfrbpf.SampleLoss", kSampleLossEvent},
    {"jfrbpf.Note", kNoteEvent},
    {"jfrbpf.TruncatedStacks", kTruncatedStacksEvent},
    {"jfrbpf.ThreadCPUTime", kThreadCpuTimeEvent},
    {"jfrbpf.OffCPUSample", kOffCpuSampleEvent},
    {"jfrbpf.OffCPUSamplesLost", kOffCpuSamplesLostEvent},
    {"jfrbpf.ProcessContext", kProcessContextEvent},
    {"jfrbpf.ProcessResource", kProcessResourceEvent},
};

std::string eventName(TypeId id) {
  for (const auto& [name, eventId] : kEventTypes)
    if (eventId == id) return std::string(name);
  return {};
}

std::string idString(TypeId id) { return std::to_string(static_cast<uint64_t>(id)); }

Element annotation(TypeId type) { return std::move(Element("annotation").attribute("class", idString(type))); }
Element annotation(TypeId type, std::string value) {
  return std::move(annotation(type).attribute("value", std::move(value)));
}
Element label(std::string text) { return annotation(kLabelAnnotation, std::move(text)); }
Element description(std::string text) { return annotation(kDescriptionAnnotation, std::move(text)); }
Element name(std::string text) { return annotation(kNameAnnotation, std::move(text)); }
Element timestamp(std::string unit) { return annotation(kTimestampAnnotation, std::move(unit)); }
Element timespan(std::string unit) { return annotation(kTimespanAnnotation, std::move(unit)); }
Element category(std::initializer_list<std::string> path) {
  Element element = annotation(kCategoryAnnotation);
  int index = 0;
  for (const auto& part : path) element.attribute("value-" + std::to_string(index++), part);
  return element;
}

enum class Ref { Inline, ConstantPool, Array };

Element field(std::string fieldName, TypeId type, Elements annotations, Ref ref = Ref::Inline) {
  Element element("field");
  element.attribute("name", std::move(fieldName)).attribute("class", idString(type));
  if (ref == Ref::ConstantPool) element.attribute("constantPool", "true");
  if (ref == Ref::Array) element.attribute("dimension", "1");
  for (const auto& a : annotations) element.child(a);
  return element;
}

Element setting(std::string settingName, TypeId control, std::string defaultValue) {
  return std::move(Element("setting")
                       .attribute("name", std::move(settingName))
                       .attribute("class", idString(control))
                       .attribute("defaultValue", std::move(defaultValue)));
}

Element type(std::string typeName, TypeId id, std::string_view superType, Elements children, bool simple = false) {
  Element element("class");
  element.attribute("name", std::move(typeName));
  if (!superType.empty()) element.attribute("superType", std::string(superType));
  if (simple) element.attribute("simpleType", "true");
  element.attribute("id", idString(id));
  for (const auto& c : children) element.child(c);
  return element;
}

Element valueType(std::string typeName, TypeId id, Elements children) {
  return type(std::move(typeName), id, {}, children);
}
Element simpleType(std::string typeName, TypeId id, Elements children) {
  return type(std::move(typeName), id, {}, children, true);
}
Element annotationType(std::string typeName, TypeId id, Elements children) {
  return type(std::move(typeName), id, kAnnotationSuperType, children);
}
Element settingType(std::string typeName, TypeId id, Elements children) {
  return type(std::move(typeName), id, kSettingSuperType, children);
}
Element eventType(TypeId id, Elements children) { return type(eventName(id), id, kEventSuperType, children); }

Element startTime() { return field("startTime", kLongType, {label("Start Time"), timestamp("TICKS")}); }
Element stringField(std::string fieldName, std::string text) {
  return field(std::move(fieldName), kStringType, {label(std::move(text))});
}
Element threadField(std::string text, Elements more = {}) {
  Element element = field("eventThread", kThreadType, {label(std::move(text))}, Ref::ConstantPool);
  for (const auto& a : more) element.child(a);
  return element;
}
Element enabledSetting(std::string defaultValue = "false") {
  return setting("enabled", kEnabledSetting, std::move(defaultValue));
}
Element endChunkPeriod() { return setting("period", kPeriodSetting, "endChunk"); }

void addPrimitives(Element& metadata) {
  metadata.child(valueType("boolean", kBooleanType, {}));
  metadata.child(valueType("int", kIntType, {}));
  metadata.child(valueType("long", kLongType, {}));
  metadata.child(valueType("java.lang.String", kStringType, {}));
}

void addAnnotationTypes(Element& metadata) {
  Element contentType = annotation(kContentTypeAnnotation);
  auto valueField = [] { return field("value", kStringType, {}); };
  metadata.child(annotationType("jdk.jfr.Label", kLabelAnnotation, {valueField()}));
  metadata.child(annotationType("jdk.jfr.Description", kDescriptionAnnotation, {valueField()}));
  metadata.child(annotationType("jdk.jfr.Name", kNameAnnotation, {valueField()}));
  metadata.child(
      annotationType("jdk.jfr.Category", kCategoryAnnotation, {field("value", kStringType, {}, Ref::Array)}));
  metadata.child(
      annotationType("jdk.jfr.Experimental", kExperimentalAnnotation,
                     {label("Experimental"), description("Element is not to be shown to a user by default")}));
  metadata.child(annotationType("jdk.jfr.Contextual", kContextualAnnotation, {label("Context")}));
  metadata.child(annotationType("jdk.jfr.ContentType", kContentTypeAnnotation,
                                {label("Content Type"), description("Semantic meaning of a value")}));
  metadata.child(annotationType("jdk.jfr.Timestamp", kTimestampAnnotation,
                                {valueField(), contentType, label("Timestamp"), description("A point in time")}));
  metadata.child(annotationType(
      "jdk.jfr.Timespan", kTimespanAnnotation,
      {valueField(), contentType, label("Timespan"), description("A duration, measured in nanoseconds by default")}));
  metadata.child(annotationType("jdk.jfr.DataAmount", kDataAmountAnnotation,
                                {valueField(), contentType, label("Data Amount"), description("Amount of data")}));
  metadata.child(annotationType(
      "jdk.jfr.Unsigned", kUnsignedAnnotation,
      {contentType, label("Unsigned Value"), description("Value should be interpreted as unsigned data type")}));
  metadata.child(
      annotationType("jdk.jfr.MemoryAddress", kMemoryAddressAnnotation,
                     {contentType, label("Memory Address"), description("Represents a physical memory address")}));
  metadata.child(annotationType(
      "jdk.jfr.Percentage", kPercentageAnnotation,
      {contentType, label("Percentage"), description("Percentage, represented as a number between 0 and 1")}));
  metadata.child(annotationType(
      "jdk.jfr.Frequency", kFrequencyAnnotation,
      {contentType, label("Frequency"), description("Measure of how often something occurs, in Hertz")}));
  metadata.child(annotationType("jdk.jfr.BooleanFlag", kBooleanFlagAnnotation, {contentType, label("Flag")}));
  metadata.child(annotationType("jdk.jfr.Relational", kRelationalAnnotation, {label("Relation")}));
  metadata.child(annotationType("jdk.types.JavaMonitorAddress", kJavaMonitorAddressAnnotation,
                                {name("jdk.types.JavaMonitorAddress"), annotation(kRelationalAnnotation)}));
}

void addSettingTypes(Element& metadata) {
  Element booleanFlag = annotation(kBooleanFlagAnnotation);
  metadata.child(
      settingType("jdk.settings.Enabled", kEnabledSetting,
                  {label("Enabled"), description("Record event"), name("jdk.settings.Enabled"), booleanFlag}));
  metadata.child(
      settingType("jdk.settings.Threshold", kThresholdSetting,
                  {label("Threshold"), name("jdk.settings.Threshold"),
                   description("Record event with duration above or equal to threshold"), timespan("NANOSECONDS")}));
  metadata.child(settingType(
      "jdk.settings.StackTrace", kStackTraceSetting,
      {label("Stack Trace"), name("jdk.settings.StackTrace"), description("Record stack traces"), booleanFlag}));
  metadata.child(settingType("jdk.settings.Period", kPeriodSetting,
                             {label("Period"), description("Record event at interval"), name("jdk.settings.Period")}));
  metadata.child(settingType(
      "jdk.settings.Throttle", kThrottleSetting,
      {label("Throttle"), description("Throttles the emission rate for an event"), name("jdk.settings.Throttle")}));
  metadata.child(settingType("jdk.settings.Filter", kFilterSetting,
                             {label("Filter"), description("Methods to be filtered"), name("jdk.settings.Filter")}));
}

// JDK 25 layouts of the constant-pool types (field order and types matter: readers cast them).
void addValueTypes(Element& metadata) {
  metadata.child(valueType(
      "java.lang.Thread", kThreadType,
      {stringField("osName", "OS Thread Name"), field("osThreadId", kLongType, {label("OS Thread Id")}),
       stringField("javaName", "Java Thread Name"), field("javaThreadId", kLongType, {label("Java Thread Id")}),
       field("group", kThreadGroupType, {label("Java Thread Group")}, Ref::ConstantPool),
       field("virtual", kBooleanType, {label("Virtual Thread")}), label("Thread")}));
  metadata.child(valueType("jdk.types.ThreadGroup", kThreadGroupType,
                           {field("parent", kThreadGroupType, {label("Parent")}, Ref::ConstantPool),
                            stringField("name", "Name"), label("Thread Group")}));
  metadata.child(valueType("java.lang.Class", kClassType,
                           {field("classLoader", kClassLoaderType, {label("Class Loader")}, Ref::ConstantPool),
                            field("name", kSymbolType, {label("Name")}, Ref::ConstantPool),
                            field("package", kPackageType, {label("Package")}, Ref::ConstantPool),
                            field("modifiers", kIntType, {label("Access Modifiers")}),
                            field("hidden", kBooleanType, {label("Hidden")}), label("Java Class")}));
  metadata.child(
      valueType("jdk.types.ClassLoader", kClassLoaderType,
                {field("type", kClassType, {label("Type")}, Ref::ConstantPool),
                 field("name", kSymbolType, {label("Name")}, Ref::ConstantPool), label("Java Class Loader")}));
  metadata.child(valueType("jdk.types.Method", kMethodType,
                           {field("type", kClassType, {label("Type")}, Ref::ConstantPool),
                            field("name", kSymbolType, {label("Name")}, Ref::ConstantPool),
                            field("descriptor", kSymbolType, {label("Descriptor")}, Ref::ConstantPool),
                            field("modifiers", kIntType, {label("Access Modifiers")}),
                            field("hidden", kBooleanType, {label("Hidden")}), label("Java Method")}));
  metadata.child(simpleType("jdk.types.Symbol", kSymbolType, {stringField("string", "String"), label("Symbol")}));
  metadata.child(
      valueType("jdk.types.Module", kModuleType,
                {field("name", kSymbolType, {label("Name")}, Ref::ConstantPool),
                 field("version", kSymbolType, {label("Version")}, Ref::ConstantPool),
                 field("location", kSymbolType, {label("Location")}, Ref::ConstantPool),
                 field("classLoader", kClassLoaderType, {label("Class Loader")}, Ref::ConstantPool), label("Module")}));
  metadata.child(valueType("jdk.types.Package", kPackageType,
                           {field("name", kSymbolType, {label("Name")}, Ref::ConstantPool),
                            field("module", kModuleType, {label("Module")}, Ref::ConstantPool),
                            field("exported", kBooleanType, {label("Exported")}), label("Package")}));
  metadata.child(
      valueType("jdk.types.StackTrace", kStackTraceType,
                {field("truncated", kBooleanType, {label("Truncated")}),
                 field("frames", kStackFrameType, {label("Stack Frames")}, Ref::Array), label("Stacktrace")}));
  metadata.child(simpleType("jdk.types.FrameType", kFrameTypeType,
                            {stringField("description", "Description"), label("Frame type")}));
  metadata.child(
      simpleType("jdk.types.ThreadState", kThreadStateType, {stringField("name", "Name"), label("Java Thread State")}));
  metadata.child(valueType("jdk.types.StackFrame", kStackFrameType,
                           {field("method", kMethodType, {label("Java Method")}, Ref::ConstantPool),
                            field("lineNumber", kIntType, {label("Line Number")}),
                            field("bytecodeIndex", kIntType, {label("Bytecode Index")}),
                            field("type", kFrameTypeType, {label("Frame Type")}, Ref::ConstantPool)}));
}

void addJdkEvents(Element& metadata) {
  Element unsignedValue = annotation(kUnsignedAnnotation);
  metadata.child(eventType(
      kCpuTimeSampleEvent,
      {setting("stackTrace", kStackTraceSetting, "true"), setting("throttle", kThrottleSetting, "off"),
       enabledSetting(), startTime(), field("stackTrace", kStackTraceType, {label("Stack Trace")}, Ref::ConstantPool),
       threadField("Thread"),
       field("failed", kBooleanType, {label("Failed"), description("Failed to obtain the stack trace")}),
       field("samplingPeriod", kLongType, {unsignedValue, timespan("TICKS"), label("CPU Time Sampling Period")}),
       field("biased", kBooleanType, {label("Biased"), description("The sample is safepoint-biased")}),
       category({"Java Virtual Machine", "Profiling"}), label("CPU Time Sample"),
       description("Snapshot of a threads state from the CPU time sampler, both threads executing native and "
                   "Java code are included. The throttle setting can be either an upper bound for the event "
                   "emission rate, e.g. 100/s, or the cpu-time period, e.g. 10ms, with s, ms, us and ns "
                   "supported as time units."),
       annotation(kExperimentalAnnotation)}));
  metadata.child(eventType(
      kObjectAllocationSampleEvent,
      {setting("throttle", kThrottleSetting, "150/s"), setting("stackTrace", kStackTraceSetting, "true"),
       enabledSetting(), startTime(), threadField("Event Thread", {description("Thread in which event was committed in")}),
       field("stackTrace", kStackTraceType,
             {label("Stack Trace"), description("Stack Trace starting from the method the event was committed in")},
             Ref::ConstantPool),
       field("objectClass", kClassType, {label("Object Class"), description("Class of allocated object")},
             Ref::ConstantPool),
       field("weight", kLongType,
             {annotation(kDataAmountAnnotation, "BYTES"), label("Sample Weight"),
              description("The relative weight of the sample. Aggregating the weights for a large number of "
                          "samples, for a particular class, thread or stack trace, gives a statistically accurate "
                          "representation of the allocation pressure")}),
       category({"Java Application"}), label("Object Allocation Sample")}));
  auto monitorAddress = [&unsignedValue](Elements more) {
    Element element = field("address", kLongType,
                            {unsignedValue, annotation(kMemoryAddressAnnotation),
                             annotation(kJavaMonitorAddressAnnotation), label("Monitor Address")});
    for (const auto& a : more) element.child(a);
    return element;
  };
  auto stackTraceField = [] {
    return field("stackTrace", kStackTraceType,
                 {label("Stack Trace"), description("Stack Trace starting from the method the event was committed in")},
                 Ref::ConstantPool);
  };
  metadata.child(eventType(
      kJavaMonitorEnterEvent,
      {setting("threshold", kThresholdSetting, "0 ns"), setting("stackTrace", kStackTraceSetting, "true"), enabledSetting(),
       startTime(), field("duration", kLongType, {label("Duration"), timespan("TICKS")}),
       threadField("Event Thread", {description("Thread in which event was committed in")}), stackTraceField(),
       field("monitorClass", kClassType, {label("Monitor Class")}, Ref::ConstantPool),
       field("previousOwner", kThreadType, {label("Previous Monitor Owner")}, Ref::ConstantPool), monitorAddress({}),
       category({"Java Application"}), label("Java Monitor Blocked")}));
  metadata.child(eventType(
      kJavaMonitorWaitEvent,
      {setting("threshold", kThresholdSetting, "0 ns"), setting("stackTrace", kStackTraceSetting, "true"), enabledSetting(),
       startTime(), field("duration", kLongType, {label("Duration"), timespan("TICKS")}),
       threadField("Event Thread", {description("Thread in which event was committed in")}), stackTraceField(),
       field("monitorClass", kClassType, {label("Monitor Class"), description("Class of object waited on")},
             Ref::ConstantPool),
       field("notifier", kThreadType, {label("Notifier Thread"), description("Notifying Thread")}, Ref::ConstantPool),
       field("timeout", kLongType, {timespan("MILLISECONDS"), label("Timeout"), description("Maximum wait time")}),
       field("timedOut", kBooleanType, {label("Timed Out"), description("Wait has been timed out")}),
       monitorAddress({description("Address of object waited on")}), category({"Java Application"}),
       label("Java Monitor Wait"), description("Waiting on a Java monitor")}));
  metadata.child(eventType(
      kThreadParkEvent,
      {setting("threshold", kThresholdSetting, "0 ns"), setting("stackTrace", kStackTraceSetting, "true"), enabledSetting(),
       startTime(), field("duration", kLongType, {label("Duration"), timespan("TICKS")}),
       threadField("Event Thread", {description("Thread in which event was committed in")}), stackTraceField(),
       field("parkedClass", kClassType, {label("Class Parked On")}, Ref::ConstantPool),
       field("timeout", kLongType, {timespan("NANOSECONDS"), label("Park Timeout")}),
       field("until", kLongType, {timestamp("MILLISECONDS_SINCE_EPOCH"), label("Park Until")}),
       field("address", kLongType,
             {unsignedValue, annotation(kMemoryAddressAnnotation), annotation(kJavaMonitorAddressAnnotation),
              label("Address of Object Parked")}),
       category({"Java Application"}), label("Java Thread Park")}));
  metadata.child(eventType(
      kExecutionSampleEvent,
      {setting("period", kPeriodSetting, "20 ms"), enabledSetting(), startTime(),
       field("sampledThread", kThreadType, {label("Thread")}, Ref::ConstantPool),
       field("stackTrace", kStackTraceType, {label("Stack Trace")}, Ref::ConstantPool),
       field("state", kThreadStateType, {label("Thread State")}, Ref::ConstantPool),
       category({"Java Virtual Machine", "Profiling"}), label("Java Execution Sample"),
       description("Snapshot of a thread executing Java code. Threads that are not executing Java code, including "
                   "those waiting or executing native code, are not included.")}));
  metadata.child(
      eventType(kCpuTimeSamplesLostEvent,
                {enabledSetting(), startTime(), field("lostSamples", kIntType, {label("Lost Samples")}),
                 threadField("Thread"), category({"Java Virtual Machine", "Profiling"}), label("CPU Time Samples Lost"),
                 description("Records that the CPU time sampler lost samples"), annotation(kExperimentalAnnotation)}));

  auto missingNote = [](const char* what) {
    return description(std::string("The value may be missing (Long.MIN_VALUE) if the clock-resolution is too low "
                                   "to establish ") +
                       what);
  };
  metadata.child(eventType(
      kMethodTimingEvent,
      {setting("period", kPeriodSetting, "everyChunk"), setting("filter", kFilterSetting, ""), enabledSetting(),
       startTime(), field("method", kMethodType, {label("Method")}, Ref::ConstantPool),
       field("invocations", kLongType, {label("Invocations")}),
       field("minimum", kLongType, {label("Minimum Time"), missingNote("a minimum time"), timespan("TICKS")}),
       field("average", kLongType, {label("Average Time"), missingNote("an average time"), timespan("TICKS")}),
       field("maximum", kLongType, {label("Maximum Time"), missingNote("a maximum time"), timespan("TICKS")}),
       name("jdk.MethodTiming"), label("Method Timing"), category({"Java Virtual Machine", "Method Tracing"}),
       description("Measures the approximate time it takes for a method to execute, including all delays, not "
                   "just CPU processing time")}));
  metadata.child(eventType(
      kMethodTraceEvent,
      {setting("threshold", kThresholdSetting, "0 ns"), setting("stackTrace", kStackTraceSetting, "true"),
       setting("filter", kFilterSetting, ""), enabledSetting(), startTime(),
       field("duration", kLongType, {label("Duration"), timespan("TICKS")}),
       threadField("Event Thread", {description("Thread in which event was committed in")}),
       field("stackTrace", kStackTraceType,
             {label("Stack Trace"), description("Stack Trace starting from the method the event was committed in")},
             Ref::ConstantPool),
       field("method", kMethodType, {annotation(kContextualAnnotation), label("Method")}, Ref::ConstantPool),
       name("jdk.MethodTrace"), label("Method Trace"), category({"Java Virtual Machine", "Method Tracing"})}));

  metadata.child(
      eventType(kActiveRecordingEvent,
                {enabledSetting(), startTime(), field("id", kLongType, {label("Id")}), stringField("name", "Name"),
                 stringField("destination", "Destination"), field("disk", kBooleanType, {label("To Disk")}),
                 field("maxAge", kLongType, {label("Max Age"), timespan("MILLISECONDS")}),
                 field("flushInterval", kLongType, {label("Flush Interval"), timespan("MILLISECONDS")}),
                 field("maxSize", kLongType, {label("Max Size"), annotation(kDataAmountAnnotation, "BYTES")}),
                 field("recordingStart", kLongType, {label("Start Time"), timestamp("MILLISECONDS_SINCE_EPOCH")}),
                 field("recordingDuration", kLongType, {label("Recording Duration"), timespan("MILLISECONDS")}),
                 name("jdk.ActiveRecording"), label("Flight Recording"), category({"Flight Recorder"})}));
  metadata.child(eventType(kActiveSettingEvent,
                           {enabledSetting(), startTime(), field("id", kLongType, {label("Event Id")}),
                            stringField("name", "Setting Name"), stringField("value", "Setting Value"),
                            name("jdk.ActiveSetting"), label("Recording Setting"), category({"Flight Recorder"})}));

  metadata.child(eventType(kOsInformationEvent,
                           {endChunkPeriod(), enabledSetting(), startTime(), stringField("osVersion", "OS Version"),
                            category({"Operating System"}), label("OS Information"),
                            description("Description of the OS the JVM runs on, for example, a uname-like output")}));
  metadata.child(eventType(
      kCpuInformationEvent,
      {endChunkPeriod(), enabledSetting(), startTime(), stringField("cpu", "Type"),
       stringField("description", "Description"), field("sockets", kIntType, {unsignedValue, label("Sockets")}),
       field("cores", kIntType, {unsignedValue, label("Cores")}),
       field("hwThreads", kIntType, {unsignedValue, label("Hardware Threads")}),
       category({"Operating System", "Processor"}), label("CPU Information"),
       description("Characteristics and descriptions of the processor(s) the JVM is running on")}));
  metadata.child(
      eventType(kJvmInformationEvent,
                {endChunkPeriod(), enabledSetting(), startTime(), stringField("jvmName", "JVM Name"),
                 stringField("jvmVersion", "JVM Version"), stringField("jvmArguments", "JVM Command Line Arguments"),
                 stringField("jvmFlags", "JVM Settings File Arguments"),
                 stringField("javaArguments", "Java Application Arguments"),
                 field("jvmStartTime", kLongType, {timestamp("MILLISECONDS_SINCE_EPOCH"), label("JVM Start Time")}),
                 field("pid", kLongType, {label("Process Identifier")}), category({"Java Virtual Machine"}),
                 label("JVM Information"), description("Description of JVM and the Java application")}));
}

void addJfrbpfEvents(Element& metadata) {
  metadata.child(eventType(
      kSampleLossEvent,
      {enabledSetting("true"), startTime(), threadField("Thread"),
       field("cause", kStringType,
             {label("Cause"), description("Why the samples were lost, e.g. ring buffer full or kernel throttling")}),
       field("lostSamples", kLongType, {label("Lost Samples")}),
       field("lostCpuTime", kLongType,
             {label("Lost CPU Time"), timespan("TICKS"),
              description("The CPU time the lost samples stood for (0 where a later sample stands for it)")}),
       category({"jfrbpf"}), label("Sample Loss"),
       description("CPU samples the profiler observed but could not record, by cause")}));
  metadata.child(eventType(
      kNoteEvent, {enabledSetting("true"), startTime(),
                   field("severity", kStringType, {label("Severity"), description("info or warning")}),
                   stringField("message", "Message"), category({"jfrbpf"}), label("Profiler Note"),
                   description("Something the profiler reports about this recording, e.g. frames it could not see")}));
  metadata.child(eventType(
      kProcessContextEvent,
      {enabledSetting("true"), startTime(), field("pid", kLongType, {label("Process Id")}),
       stringField("serviceName", "Service Name"),
       field("resource", kStringType,
             {label("Resource"), description("The process's OpenTelemetry resource attributes, key=value, comma "
                                             "separated (service.instance.id, deployment.environment.name, ...)")}),
       field("attributes", kStringType, {label("Attributes"), description("Its other published attributes")}),
       field("threadContext", kStringType,
             {label("Thread Context"), description("The schema its threads publish their context in, and the "
                                                   "names of its attribute keys by index, or empty")}),
       category({"jfrbpf"}), label("Process Context"),
       description("The OpenTelemetry process context a target published (OTEP 4719), when it became a target and "
                   "whenever it published another")}));
  metadata.child(eventType(
      kProcessResourceEvent,
      {endChunkPeriod(), enabledSetting("true"), startTime(), field("pid", kLongType, {label("Process Id")}),
       field("hostName", kStringType, {label("Host Name"), description("The host the recorder runs on (host.name)")}),
       field("executableName", kStringType,
             {label("Executable Name"), description("The process's executable (process.executable.name)")}),
       field("executablePath", kStringType,
             {label("Executable Path"),
              description("Its path, in the process's own file system (process.executable.path)")}),
       field("containerId", kStringType,
             {label("Container Id"), description("The container it runs in (container.id); empty outside one")}),
       field("containerRuntime", kStringType, {label("Container Runtime"), description("docker, containerd, ...")}),
       field("k8sPodName", kStringType,
             {label("Kubernetes Pod"), description("The pod it runs in (k8s.pod.name); empty outside one")}),
       field("k8sNamespaceName", kStringType,
             {label("Kubernetes Namespace"), description("The pod's namespace (k8s.namespace.name)")}),
       category({"jfrbpf"}), label("Process Resource"),
       description("Where the process this file records runs, as OpenTelemetry's resource attributes name it; in "
                   "every chunk")}));
  metadata.child(eventType(
      kTruncatedStacksEvent,
      {enabledSetting("true"), startTime(),
       field("cause", kStringType,
             {label("Cause"), description("Where the stack walk stopped, e.g. no unwind info or bad frame")}),
       field("samples", kLongType, {label("Samples")}), category({"jfrbpf"}), label("Truncated Stacks"),
       description("Samples whose stack walk stopped before the thread's outermost frame, by cause, since the "
                   "previous event: their stack traces are truncated and end in a [truncated: cause] frame")}));
  metadata.child(eventType(
      kThreadCpuTimeEvent,
      {enabledSetting("true"), startTime(), threadField("Thread"),
       field("cpuTime", kLongType,
             {label("CPU Time"), timespan("TICKS"),
              description("The thread's CPU time over the recording by the kernel's own accounting (schedstat)")}),
       field("wallTime", kLongType,
             {label("Wall Time"), timespan("TICKS"),
              description("The span of the recording the thread was alive for: wallTime - cpuTime is the time it "
                          "spent off CPU, what its off-CPU samples' weights stand for")}),
       field("runDelay", kLongType,
             {label("Run Delay"), timespan("TICKS"),
              description("Its time runnable but waiting for a CPU over the same span, by the kernel's accounting "
                          "(schedstat's second field)")}),
       category({"jfrbpf"}), label("Thread CPU Time"),
       description("What each thread alive at the end of the recording used, for comparison with the CPU time "
                   "its samples stand for (their samplingPeriod)")}));
  metadata.child(eventType(
      kOffCpuSampleEvent,
      {setting("throttle", kThrottleSetting, "1 ms"), setting("stackTrace", kStackTraceSetting, "true"),
       enabledSetting(), startTime(),
       field("duration", kLongType, {label("Duration"), timespan("TICKS")}),
       threadField("Event Thread", {description("The thread that was off CPU")}),
       field("stackTrace", kStackTraceType,
             {label("Stack Trace"), description("Where the thread left the CPU: Java and native frames over the "
                                                "kernel frames it waited in")},
             Ref::ConstantPool),
       field("weight", kLongType,
             {label("Weight"), timespan("TICKS"),
              description("The thread's off-CPU time this event stands for, by the kernel's accounting (schedstat): "
                          "the wait itself when it lasted at least the throttle (or the throttle is 0); a shorter "
                          "wait is picked about once per throttle of such waits and stands for those since the "
                          "previous pick")}),
       field("state", kStringType,
             {label("State"), description("The thread's state as it left the CPU: sleeping (waiting for an "
                                          "event), uninterruptible (mostly I/O), preempted (still runnable) or "
                                          "unknown (off CPU since before the recording)")}),
       field("runDelay", kLongType,
             {label("Run Delay"), timespan("TICKS"),
              description("The thread's time runnable but waiting for a CPU since its previous event, by the "
                          "kernel's accounting (schedstat): summed over a thread's events, its run delay")}),
       category({"jfrbpf"}), label("Off-CPU Sample"),
       description("An interval a thread spent off CPU, picked by off-CPU time: every wait of at least the "
                   "throttle, and about one per throttle of the shorter ones, weighted by the time it stands for")}));
  metadata.child(eventType(
      kOffCpuSamplesLostEvent,
      {enabledSetting("true"), startTime(), threadField("Thread"),
       field("lostSamples", kLongType, {label("Lost Samples")}),
       field("lostTime", kLongType,
             {label("Lost Off-CPU Time"), timespan("TICKS"), description("The off-CPU time the lost samples stood for")}),
       category({"jfrbpf"}), label("Off-CPU Samples Lost"),
       description("Off-CPU samples the profiler took but could not record (ring buffer full), since the last such "
                   "event")}));
}

// FNV-1a: stable across runs and builds, unlike std::hash.
int64_t contentHash(const ByteBuffer& body) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < body.size(); ++i) hash = (hash ^ body.data()[i]) * 0x100000001b3ull;
  // Positive and never 0: some readers treat a zero id as "no metadata yet".
  auto id = static_cast<int64_t>(hash & 0x7fffffffffffffffull);
  return id == 0 ? 1 : id;
}

}  // namespace

// The OpenTelemetry context fields (recording.h, TraceContext), after the event's own. Pyroscope's JFR parser
// reads spanId, traceIdHi, traceIdLo and contextId by these names and types.
void addTraceContextFields(Element& metadata) {
  constexpr TypeId kTakenInThread[] = {kCpuTimeSampleEvent,    kExecutionSampleEvent, kMethodTraceEvent,
                                       kObjectAllocationSampleEvent, kJavaMonitorEnterEvent, kJavaMonitorWaitEvent,
                                       kThreadParkEvent,       kOffCpuSampleEvent};
  auto unsignedLong = [](std::string name, std::string text, std::string what) {
    return field(std::move(name), kLongType,
                 {annotation(kUnsignedAnnotation), label(std::move(text)), description(std::move(what))});
  };
  for (Element& type : metadata.children) {
    const std::string id = [&] {
      for (const auto& [key, value] : type.attributes)
        if (key == "id") return value;
      return std::string();
    }();
    if (std::none_of(std::begin(kTakenInThread), std::end(kTakenInThread),
                     [&](TypeId event) { return idString(event) == id; })) {
      continue;
    }
    type.child(unsignedLong("traceIdHi", "Trace Id High",
                            "The OpenTelemetry trace id's first 8 bytes, big-endian (its first 16 hex digits); 0 outside a trace"));
    type.child(unsignedLong("traceIdLo", "Trace Id Low", "The trace id's last 8 bytes, big-endian"));
    type.child(unsignedLong("spanId", "Span Id", "The OpenTelemetry span id, big-endian; 0 outside a span"));
    type.child(field("traceFlags", kIntType, {label("Trace Flags"), description("W3C trace flags: 1 = sampled")}));
    type.child(field("contextAttributes", kStringType,
                     {label("Context Attributes"),
                      description("The thread context's attributes, as key=value, comma separated")}));
    type.child(field("contextNotRead", kStringType,
                     {label("Context Not Read"), description("Why the thread's context could not be read")}));
    type.child(field("contextId", kLongType,
                     {label("Context Id"),
                      description("The context's attributes as one number, the same for the same attributes; 0 "
                                  "without any. Pyroscope labels events by it (the labels part of an upload)")}));
  }
}

int64_t contextIdOf(std::string_view attributes) {
  if (attributes.empty()) return 0;
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : attributes) hash = (hash ^ c) * 0x100000001b3ull;
  const auto id = static_cast<int64_t>(hash & 0x7fffffffffffffffull);
  return id == 0 ? 1 : id;
}

MetadataSchema buildMetadataSchema(int64_t gmtOffsetMillis, bool traceContext) {
  Element metadata("metadata");
  addJdkEvents(metadata);
  addJfrbpfEvents(metadata);
  if (traceContext) addTraceContextFields(metadata);
  addPrimitives(metadata);
  addValueTypes(metadata);
  addAnnotationTypes(metadata);
  addSettingTypes(metadata);

  Element root("root");
  root.child(std::move(metadata));
  root.child(std::move(Element("region")
                           .attribute("locale", "en")
                           .attribute("gmtOffset", std::to_string(gmtOffsetMillis))
                           .attribute("dst", "0")));

  MetadataSchema schema;
  schema.body = serializeMetadataBody(root);
  schema.id = contentHash(schema.body);
  return schema;
}

std::optional<TypeId> eventTypeByName(std::string_view name) {
  for (const auto& [eventName, id] : kEventTypes)
    if (eventName == name) return id;
  return std::nullopt;
}

}  // namespace jfrbpf::jfr
