#include "formats/convert/profile_builder.h"

#include <algorithm>
#include <climits>
#include <cstdio>

#include "formats/convert/saturating.h"

namespace jfrbpf::convert {
namespace {

using jfr::reader::Frame;

// A hostile file may put samples anywhere in time; the grid stays bounded whatever it claims.
constexpr int64_t kMaxGridSlots = 1 << 20;

constexpr std::string_view kUnknownThread = "[unknown thread]";
constexpr std::string_view kUnavailableStack = "[stack trace unavailable]";
constexpr std::string_view kUnknownClass = "[unknown class]";

// Kernel frames are the innermost native frames, down to the last one owned by the kernel image itself:
// the kernel part of a stack always ends in vmlinux's entry code, while modules ("xfs") may sit above it.
size_t kernelFrameCount(const std::vector<Frame>& frames, const std::vector<bool>& nativeCode) {
  size_t count = 0;
  for (size_t i = 0; i < frames.size() && nativeCode[i]; ++i) {
    if (frames[i].className == "kernel" || frames[i].type == "Kernel") count = i + 1;
  }
  return count;
}

}  // namespace

ProfileBuilder::ProfileBuilder(SampleFilter filter, int64_t gridStartNanos, int64_t gridNanos)
    : filter_(std::move(filter)) {
  profile_.gridStartNanos = gridStartNanos;
  profile_.gridNanos = std::max<int64_t>(1, gridNanos);
  profile_.nodes.push_back(StackNode{});
  nodeSelected_.push_back(filter_.method.empty());
  profile_.contexts.emplace_back();
  contextSelected_.push_back(filter_.context.empty());
  profile_.eventStates.emplace_back();
}

void ProfileBuilder::beginChunk() {
  chunkStacks_.clear();
  chunkMethods_.clear();
  chunkThreads_.clear();
  chunkClasses_.clear();
}

std::string virtualThreadGroupName(std::string_view name) {
  size_t digits = name.size();
  while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9') --digits;
  if (digits == name.size() || digits == 0) return std::string(name);
  return std::string(name.substr(0, digits)) + "*";
}

uint32_t ProfileBuilder::thread(const std::optional<jfr::reader::ThreadInfo>& info) {
  if (info && info->object) {
    auto cached = chunkThreads_.find(info->object);
    if (cached != chunkThreads_.end()) return cached->second;
  }
  ProfileThread t;
  if (info) {
    t.name = std::string(info->javaName.empty() ? info->osName : info->javaName);
    t.osName = std::string(info->osName);
    t.osThreadId = info->osThreadId;
    t.javaThreadId = info->javaThreadId;
    t.isVirtual = info->virtualThread;
  }
  if (t.isVirtual && filter_.virtualThreadsByName) {
    t.name = t.name.empty() ? std::string(kUnnamedVirtualThreads) : virtualThreadGroupName(t.name);
    t.javaThreadId = 0;
  }
  // JDK 25 names no virtual thread unless the program did: its Java id tells it from the others.
  if (t.name.empty() && t.isVirtual) t.name = "[virtual thread " + std::to_string(t.javaThreadId) + "]";
  if (t.name.empty()) t.name = info ? "[tid " + std::to_string(t.osThreadId) + "]" : std::string(kUnknownThread);
  std::string key = std::to_string(t.osThreadId) + '/' + std::to_string(t.javaThreadId) + '/' + t.name;
  auto [it, inserted] = threadsByKey_.try_emplace(key, static_cast<uint32_t>(profile_.threads.size()));
  if (inserted) {
    threadSelected_.push_back(filter_.thread.empty() || filter_.thread == t.name || filter_.thread == t.osName ||
                              filter_.thread == std::to_string(t.osThreadId));
    profile_.threads.push_back(std::move(t));
  }
  if (info && info->object) chunkThreads_.emplace(info->object, it->second);
  return it->second;
}

bool ProfileBuilder::threadSelected(uint32_t thread) const {
  return thread < threadSelected_.size() && threadSelected_[thread];
}

bool ProfileBuilder::stackSelected(uint32_t node) const { return node < nodeSelected_.size() && nodeSelected_[node]; }

uint32_t ProfileBuilder::internMethod(ProfileMethod method, const std::string& key) {
  auto [it, inserted] = methodsByKey_.try_emplace(key, static_cast<uint32_t>(profile_.methods.size()));
  if (inserted) profile_.methods.push_back(std::move(method));
  return it->second;
}

uint32_t ProfileBuilder::methodFor(const Frame& frame, bool nativeCode) {
  uintptr_t address = reinterpret_cast<uintptr_t>(frame.method) | (nativeCode ? 1 : 0);
  if (frame.method) {
    auto cached = chunkMethods_.find(address);
    if (cached != chunkMethods_.end()) return cached->second;
  }
  ProfileMethod m;
  m.java = !nativeCode;
  std::string key;
  if (nativeCode && isMarkerFrame(frame.className, frame.methodName)) {
    m.name = std::string(frame.methodName);
    m.owner = std::string(frame.className);
    m.systemName = m.name;
    key = "N" + m.owner + '\0' + m.systemName;
  } else if (nativeCode) {
    m.name = nativeFrameName(frame.className, frame.methodName);
    m.owner = std::string(frame.className);
    m.systemName = std::string(frame.methodName);
    key = "N" + m.owner + '\0' + m.systemName;
  } else {
    m.name = javaMethodName(frame.className, frame.methodName, frame.descriptor);
    m.owner = jfr::reader::javaClassName(frame.className);
    m.systemName = std::string(frame.className) + '.' + std::string(frame.methodName) + std::string(frame.descriptor);
    key = "J" + m.systemName;
  }
  uint32_t index = internMethod(std::move(m), key);
  if (frame.method) chunkMethods_.emplace(address, index);
  return index;
}

uint32_t ProfileBuilder::javaMethod(const jfr::reader::RecordedObject* method) {
  Frame frame;
  frame.method = method;
  if (method) {
    frame.methodName = method->getString("name");
    frame.descriptor = method->getString("descriptor");
    if (const auto* type = method->getObject("type")) frame.className = type->getString("name");
  }
  return methodFor(frame, false);
}

uint32_t ProfileBuilder::frameFor(uint32_t method, int32_t line, FrameKind kind) {
  FrameKey key{method, line, kind};
  auto [it, inserted] = framesByKey_.try_emplace(key, static_cast<uint32_t>(profile_.frames.size()));
  if (inserted) profile_.frames.push_back(ProfileFrame{method, line, kind});
  return it->second;
}

uint32_t ProfileBuilder::child(uint32_t parent, uint32_t frame) {
  uint64_t key = (static_cast<uint64_t>(parent) << 32) | frame;
  auto [it, inserted] = children_.try_emplace(key, static_cast<uint32_t>(profile_.nodes.size()));
  if (inserted) {
    profile_.nodes.push_back(StackNode{parent, frame, profile_.nodes[parent].depth + 1});
    bool selected = nodeSelected_[parent] ||
                    profile_.methods[profile_.frames[frame].method].name.find(filter_.method) != std::string::npos;
    nodeSelected_.push_back(selected);
  }
  return it->second;
}

uint32_t ProfileBuilder::namedFrame(std::string name, std::string systemName, const std::string& key,
                                    FrameKind kind) {
  ProfileMethod m;
  m.name = std::move(name);
  m.systemName = std::move(systemName);
  return frameFor(internMethod(std::move(m), key), -1, kind);
}

uint32_t ProfileBuilder::syntheticFrame(std::string_view name) {
  auto cached = syntheticFrames_.find(name);
  if (cached != syntheticFrames_.end()) return cached->second;
  // "S" keeps these apart from native symbols of the same name.
  uint32_t frame = namedFrame(std::string(name), std::string(name), "S" + std::string(name), FrameKind::kUnknown);
  syntheticFrames_.emplace(name, frame);
  return frame;
}

uint32_t ProfileBuilder::classFrame(const jfr::reader::RecordedObject* type, FrameKind kind,
                                    std::string_view absent) {
  if (type) {
    auto cached = chunkClasses_.find(type);
    if (cached != chunkClasses_.end()) return cached->second;
  }
  std::string internal(type ? type->getString("name") : std::string_view());
  std::string name = internal.empty() ? std::string(absent) : javaTypeName(internal);
  // "C" keeps allocated classes apart from methods and synthetic frames of the same name, "L" lock classes.
  std::string key = (kind == FrameKind::kLockClass ? "L" : "C") + (internal.empty() ? name : internal);
  uint32_t frame = namedFrame(name, internal.empty() ? name : internal, key, kind);
  if (type) chunkClasses_.emplace(type, frame);
  return frame;
}

uint32_t ProfileBuilder::allocatedClass(const jfr::reader::RecordedObject* type) {
  return classFrame(type, FrameKind::kAllocatedClass, kUnknownClass);
}

uint32_t ProfileBuilder::lockClass(const jfr::reader::RecordedObject* type, std::string_view absent) {
  return classFrame(type, FrameKind::kLockClass, absent);
}

uint32_t ProfileBuilder::stack(const jfr::reader::Value& stackTrace) {
  jfr::reader::StackTraceView view(stackTrace);
  if (!view.present() || view.size() == 0) return child(0, syntheticFrame(kUnavailableStack));
  auto cached = chunkStacks_.find(view.object());
  if (cached != chunkStacks_.end()) return cached->second;

  std::vector<Frame> frames = view.frames();
  std::vector<bool> nativeCode(frames.size());
  for (size_t i = 0; i < frames.size(); ++i) {
    nativeCode[i] = isNativeCode(frames[i].type, frames[i].className, frames[i].descriptor);
  }
  size_t kernelFrames = kernelFrameCount(frames, nativeCode);
  // A truncated stack hangs under a root that says so (jfrbpf writes one naming the cause), never under
  // whatever frame it stopped at, which would pass for a thread root.
  const Frame& outermost = frames.back();
  bool marked = isTruncationMarker(outermost.className, outermost.methodName);
  uint32_t node = view.truncated() && !marked ? child(0, syntheticFrame(kTruncatedRoot)) : 0;
  for (size_t i = frames.size(); i-- > 0;) {
    FrameKind kind = i < kernelFrames ? FrameKind::kKernel : frameKindFromType(frames[i].type);
    uint32_t method = methodFor(frames[i], nativeCode[i]);
    node = child(node, frameFor(method, frames[i].lineNumber, kind));
  }
  chunkStacks_.emplace(view.object(), node);
  return node;
}

std::optional<ProfileBuilder::Selected> ProfileBuilder::select(const jfr::reader::RecordedObject& event) {
  uint32_t t = thread(jfr::reader::threadOf(event));
  if (!threadSelected(t)) return std::nullopt;
  uint32_t node = stack(event.get("stackTrace"));
  if (!stackSelected(node)) return std::nullopt;
  uint32_t c = context(event);
  if (!contextSelected(c)) return std::nullopt;
  if (!filter_.contextFrame.empty()) {
    const std::string_view value = profile_.contexts[c].value(filter_.contextFrame);
    const std::string name = "[" + filter_.contextFrame + (value.empty() ? ": none" : "=" + std::string(value)) + "]";
    node = rebase(node, child(0, syntheticFrame(name)));
  }
  return Selected{t, node, c};
}

uint32_t ProfileBuilder::context(const jfr::reader::RecordedObject& event) {
  const auto hi = static_cast<uint64_t>(event.getLong("traceIdHi"));
  const auto lo = static_cast<uint64_t>(event.getLong("traceIdLo"));
  const auto span = static_cast<uint64_t>(event.getLong("spanId"));
  const std::string_view attributes = event.getString("contextAttributes");
  if (hi == 0 && lo == 0 && span == 0 && attributes.empty()) return 0;
  char ids[50];
  std::snprintf(ids, sizeof ids, "%016llx%016llx/%016llx", static_cast<unsigned long long>(hi),
                static_cast<unsigned long long>(lo), static_cast<unsigned long long>(span));
  std::string key = std::string(ids) + '/' + std::string(attributes);
  auto [it, inserted] = contextsByKey_.try_emplace(std::move(key), static_cast<uint32_t>(profile_.contexts.size()));
  if (!inserted) return it->second;
  ProfileContext c;
  if (hi != 0 || lo != 0) c.traceId = std::string(ids, 32);
  if (span != 0) c.spanId = std::string(ids + 33, 16);
  c.attributes = splitContextAttributes(attributes);
  bool selected = filter_.context.empty();
  if (!selected) {
    const size_t equals = filter_.context.find('=');
    selected = equals != std::string::npos &&
               c.value(std::string_view(filter_.context).substr(0, equals)) == filter_.context.substr(equals + 1);
  }
  contextSelected_.push_back(selected);
  profile_.contexts.push_back(std::move(c));
  return it->second;
}

bool ProfileBuilder::contextSelected(uint32_t context) const {
  return context < contextSelected_.size() && contextSelected_[context];
}

uint32_t ProfileBuilder::rebase(uint32_t node, uint32_t parent) {
  std::vector<uint32_t> frames;
  for (uint32_t n = node; n != 0; n = profile_.nodes[n].parent) frames.push_back(profile_.nodes[n].frame);
  for (size_t i = frames.size(); i-- > 0;) parent = child(parent, frames[i]);
  return parent;
}

uint32_t ProfileBuilder::eventState(std::string_view name) {
  auto known = eventStates_.find(name);
  if (known != eventStates_.end()) return known->second;
  const auto index = static_cast<uint32_t>(profile_.eventStates.size());
  profile_.eventStates.emplace_back(name);
  eventStates_.emplace(name, index);
  return index;
}

void ProfileBuilder::addSample(uint32_t thread, uint32_t node, int64_t timeNanos, int64_t cpuNanos, uint32_t context,
                               uint32_t state) {
  GroupKey key{thread, node, context};
  auto [it, inserted] = groupsByKey_.try_emplace(key, static_cast<uint32_t>(profile_.groups.size()));
  if (inserted) profile_.groups.push_back(SampleGroup{thread, node, context, 0, 0, {}, {}});
  SampleGroup& group = profile_.groups[it->second];
  if (filter_.keepEvents) group.events.push_back(SampleEvent{timeNanos, cpuNanos, state});
  group.samples += 1;
  group.cpuNanos = saturatingAdd(group.cpuNanos, cpuNanos);
  profile_.totalSamples += 1;
  profile_.totalCpuNanos = saturatingAdd(profile_.totalCpuNanos, cpuNanos);

  int64_t offset = std::max<int64_t>(0, saturatingSub(timeNanos, profile_.gridStartNanos));
  auto slot = static_cast<uint32_t>(std::min<int64_t>(offset / profile_.gridNanos, kMaxGridSlots - 1));
  if (!group.times.empty() && group.times.back().slot == slot && group.times.back().samples < UINT32_MAX) {
    group.times.back().samples += 1;
    group.times.back().nanos = saturatingAdd(group.times.back().nanos, cpuNanos);
  } else {
    group.times.push_back(TimeCount{slot, 1, cpuNanos});
  }
}

Profile ProfileBuilder::finish() {
  uint32_t slots = 0;
  for (SampleGroup& group : profile_.groups) {
    // Events of a chunk are nearly, not strictly, in time order: merge the few out-of-order runs.
    if (!std::is_sorted(group.times.begin(), group.times.end(),
                        [](const TimeCount& a, const TimeCount& b) { return a.slot < b.slot; })) {
      std::stable_sort(group.times.begin(), group.times.end(),
                       [](const TimeCount& a, const TimeCount& b) { return a.slot < b.slot; });
      std::vector<TimeCount> merged;
      for (const TimeCount& t : group.times) {
        if (!merged.empty() && merged.back().slot == t.slot && UINT32_MAX - merged.back().samples >= t.samples) {
          merged.back().samples += t.samples;
          merged.back().nanos = saturatingAdd(merged.back().nanos, t.nanos);
        } else {
          merged.push_back(t);
        }
      }
      group.times = std::move(merged);
    }
    if (!group.times.empty()) slots = std::max(slots, group.times.back().slot + 1);
    std::stable_sort(group.events.begin(), group.events.end(),
                     [](const SampleEvent& a, const SampleEvent& b) { return a.timeNanos < b.timeNanos; });
  }
  profile_.gridSlots = slots;
  return std::move(profile_);
}

std::string_view ProfileContext::value(std::string_view key) const {
  if (key == "trace") return traceId;
  if (key == "span") return spanId;
  for (const auto& [name, value] : attributes) {
    if (name == key) return value;
  }
  return {};
}

std::vector<std::pair<std::string, std::string>> splitContextAttributes(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> attributes;
  std::string key, value;
  bool inValue = false;
  auto finish = [&] {
    if (!key.empty() || !value.empty()) attributes.emplace_back(std::move(key), std::move(value));
    key.clear();
    value.clear();
    inValue = false;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    std::string& into = inValue ? value : key;
    if (text[i] == '\\' && i + 1 < text.size() && (text[i + 1] == '\\' || text[i + 1] == ',')) {
      into.push_back(text[++i]);
    } else if (text[i] == ',' && i + 1 < text.size() && text[i + 1] == ' ') {
      ++i;
      finish();
    } else if (text[i] == '=' && !inValue) {
      inValue = true;
    } else {
      into.push_back(text[i]);
    }
  }
  finish();
  return attributes;
}

std::vector<uint32_t> Profile::stackLeafFirst(uint32_t node) const {
  std::vector<uint32_t> out;
  while (node != 0 && node < nodes.size()) {
    out.push_back(nodes[node].frame);
    node = nodes[node].parent;
  }
  return out;
}

}  // namespace jfrbpf::convert
