#pragma once
// Builds a Profile from decoded events: interns methods, frames, stacks and threads across chunks (the
// reader's constants live for one chunk; the profile's tables for the whole recording).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "formats/convert/profile.h"
#include "formats/jfr/reader/standard_types.h"
#include "formats/jfr/reader/value.h"

namespace jfrbpf::convert {

// Which samples to keep.
// The one thread the unnamed virtual threads are, grouped by name (SampleFilter::virtualThreadsByName).
inline constexpr std::string_view kUnnamedVirtualThreads = "[virtual threads]";

// A named virtual thread's group: its name with a trailing number as "*" ("handler-17" -> "handler-*"), as
// thread factories number the threads of one kind.
std::string virtualThreadGroupName(std::string_view name);

struct SampleFilter {
  std::string thread;  // exact Java or OS thread name, or decimal OS thread id; empty keeps every thread
  std::string method;  // substring of any frame's display name; empty keeps every stack
  // Virtual threads of one name (virtualThreadGroupName) are one thread, the unnamed ones "[virtual
  // threads]": a flame graph or a profile of a server that runs a hundred thousand of them needs no root or
  // label for each.
  bool virtualThreadsByName = false;
  // OpenTelemetry contexts: "KEY=VALUE" keeps the samples whose context has that attribute value ("trace=HEX",
  // "span=HEX": that trace id or span id); empty keeps every sample.
  std::string context;
  // "trace", "span" or an attribute's key: each stack gets an outermost frame that names its value there
  // ("[http.route=/checkout]", "[http.route: none]"), so that flame graphs and collapsed stacks divide by it.
  std::string contextFrame;
  // Each sample's time, value and state too (SampleGroup::events), for outputs that list samples one by one.
  bool keepEvents = false;
};

class ProfileBuilder {
 public:
  // Samples are placed on a time grid of `gridNanos`-wide slots starting at `gridStartNanos`.
  ProfileBuilder(SampleFilter filter, int64_t gridStartNanos, int64_t gridNanos);

  // Call before the events of each chunk: the reader's constants (and so the pointer caches) are per chunk.
  void beginChunk();

  // Interning. A null thread becomes "[unknown thread]"; a missing or empty stack trace becomes a stack of
  // one frame, "[stack trace unavailable]", so that every sample stays counted.
  uint32_t thread(const std::optional<jfr::reader::ThreadInfo>& info);
  uint32_t stack(const jfr::reader::Value& stackTrace);
  uint32_t javaMethod(const jfr::reader::RecordedObject* method);  // a jdk.types.Method constant

  bool threadSelected(uint32_t thread) const;
  bool stackSelected(uint32_t node) const;

  // The thread and stack of a sample event (its "stackTrace"), or nullopt when the filters leave it out.
  struct Selected {
    uint32_t thread;
    uint32_t node;
    uint32_t context;  // index into Profile::contexts
  };
  std::optional<Selected> select(const jfr::reader::RecordedObject& event);

  // A frame jfrbpf makes up to say something about a stack, such as "[on CPU]", shown by its name alone;
  // interned once per name. `onTop(node, frame)` is the stack `node` with that frame as its new leaf.
  uint32_t syntheticFrame(std::string_view name);
  uint32_t onTop(uint32_t node, uint32_t frame) { return child(node, frame); }
  // The frame of an allocated class (a java.lang.Class constant, as jdk.ObjectAllocationSample's objectClass),
  // named as Java spells it ("byte[]"), of kind kAllocatedClass: the leaf of an allocation sample's stack.
  uint32_t allocatedClass(const jfr::reader::RecordedObject* type);
  // The same for the class of a lock (jdk.JavaMonitorEnter's monitorClass, jdk.ThreadPark's parkedClass), of
  // kind kLockClass; a null class is the frame `absent` ("[no blocker]").
  uint32_t lockClass(const jfr::reader::RecordedObject* type, std::string_view absent);

  // One sample of `thread` with the stack ending at `node`, in `context`, in `state` (eventState). Filters are
  // the caller's business.
  void addSample(uint32_t thread, uint32_t node, int64_t timeNanos, int64_t cpuNanos, uint32_t context = 0,
                 uint32_t state = 0);
  // An off-CPU sample's state ("sleeping"), interned in Profile::eventStates.
  uint32_t eventState(std::string_view name);

  // The context of a sample event (jfrbpf's context fields), interned; 0 when it has none.
  uint32_t context(const jfr::reader::RecordedObject& event);
  bool contextSelected(uint32_t context) const;

  Profile& profile() { return profile_; }
  const Profile& profile() const { return profile_; }
  // Sorts each group's time slots and kept events by time and sets the grid size; the builder is spent afterwards.
  Profile finish();

 private:
  struct FrameKey {
    uint32_t method;
    int32_t line;
    FrameKind kind;
    bool operator==(const FrameKey&) const = default;
  };
  struct FrameKeyHash {
    size_t operator()(const FrameKey& k) const {
      return (static_cast<size_t>(k.method) * 0x9E3779B97F4A7C15ull) ^ (static_cast<size_t>(k.line) << 3) ^
             static_cast<size_t>(k.kind);
    }
  };

  uint32_t methodFor(const jfr::reader::Frame& frame, bool nativeCode);
  uint32_t internMethod(ProfileMethod method, const std::string& key);
  uint32_t frameFor(uint32_t method, int32_t line, FrameKind kind);
  // The one frame of a name that is not a method's (a synthetic frame, a class), keyed apart by `key`.
  uint32_t namedFrame(std::string name, std::string systemName, const std::string& key, FrameKind kind);
  // The frame of a class of `kind` (allocatedClass, lockClass), `absent` for a null class.
  uint32_t classFrame(const jfr::reader::RecordedObject* type, FrameKind kind, std::string_view absent);
  uint32_t child(uint32_t parent, uint32_t frame);
  // The stack ending at `node`, under `parent` instead of the root.
  uint32_t rebase(uint32_t node, uint32_t parent);

  SampleFilter filter_;
  Profile profile_;
  std::vector<bool> nodeSelected_;  // the method filter matches a frame on the path to the node
  std::vector<bool> threadSelected_;

  std::unordered_map<std::string, uint32_t> methodsByKey_;
  std::unordered_map<FrameKey, uint32_t, FrameKeyHash> framesByKey_;
  std::unordered_map<uint64_t, uint32_t> children_;  // (parent << 32 | frame) -> node
  std::unordered_map<std::string, uint32_t> threadsByKey_;
  struct GroupKey {
    uint32_t thread, node, context;
    bool operator==(const GroupKey&) const = default;
  };
  struct GroupKeyHash {
    size_t operator()(const GroupKey& k) const {
      return ((static_cast<size_t>(k.thread) << 32 | k.node) * 0x9E3779B97F4A7C15ull) ^ k.context;
    }
  };
  std::unordered_map<GroupKey, uint32_t, GroupKeyHash> groupsByKey_;
  std::unordered_map<std::string, uint32_t> contextsByKey_;
  std::vector<bool> contextSelected_;
  std::map<std::string, uint32_t, std::less<>> syntheticFrames_;  // by name, looked up without a copy
  std::map<std::string, uint32_t, std::less<>> eventStates_;  // Profile::eventStates by name

  // Per chunk: constants identified by address.
  std::unordered_map<const void*, uint32_t> chunkStacks_;
  std::unordered_map<uintptr_t, uint32_t> chunkMethods_;  // address | 1 for native-code interpretation
  std::unordered_map<const void*, uint32_t> chunkThreads_;
  // Classes -> their frame: a builder puts a class's frame in one kind (allocated, lock) only.
  std::unordered_map<const void*, uint32_t> chunkClasses_;
};

}  // namespace jfrbpf::convert
