#pragma once
// Interned constants of a recording (symbols, packages, classes, methods, threads) and, per chunk, which of
// them the chunk references: a chunk's checkpoint carries exactly those, so every chunk is self-contained
// and small. Ids double as pool keys and are never 0 (0 is null in every pool).
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "formats/jfr/writer/byte_buffer.h"
#include "formats/jfr/writer/types.h"

namespace jfrbpf::jfr {

class ConstantPools {
 public:
  ConstantPools();
  ConstantPools(const ConstantPools&) = delete;
  ConstantPools& operator=(const ConstantPools&) = delete;

  // Interning; throws jfrbpf::Error on an unknown ClassId/ThreadId (a caller bug, not a hot-path condition).
  ClassId internClass(std::string_view internalName, int32_t modifiers, bool hidden);
  MethodId internMethod(ClassId type, std::string_view name, std::string_view descriptor, int32_t modifiers,
                        bool hidden);
  ThreadId internThread(const ThreadInfo& info);
  void updateThread(ThreadId id, const ThreadInfo& info);

  bool isMethod(MethodId id) const { return id != 0 && id <= methods_.size(); }
  bool isThread(ThreadId id) const { return id != 0 && id <= threads_.size(); }

  // Marks for the chunk being built; ids must be valid (isMethod/isThread). Cheap when already marked.
  void markMethod(MethodId id) {
    if (methods_[id - 1].mark != generation_) markMethodSlow(id);
  }
  // Marks the thread and returns its pool key. The key changes when updateThread changes the thread: the
  // JDK reuses what it resolved for a key in the previous chunk, so new names need a new key.
  uint64_t markThread(ThreadId id) {
    Thread& thread = threads_[id - 1];
    if (thread.mark != generation_) markThreadSlow(id);
    return thread.key;
  }
  // Marks virtual thread `javaThreadId` for this chunk and returns its pool key. Its constant is the JDK's for
  // a virtual thread: no OS thread, javaName "" (the JDK's unnamed virtual threads), virtual. It lives as long
  // as the chunk: the next chunk that refers to the thread writes it again, under another key.
  uint64_t markVirtualThread(int64_t javaThreadId);
  // Names virtual thread `javaThreadId` in the constants written from now on. At most kMaxVirtualThreadNames
  // names of kMaxVirtualThreadNameBytes in all are kept: past either they are forgotten all at once, and a name
  // comes back when it is given again.
  void nameVirtualThread(int64_t javaThreadId, std::string_view name);
  static constexpr size_t kMaxVirtualThreadNames = 65'536;
  static constexpr size_t kMaxVirtualThreadNameBytes = size_t{4} << 20;
  bool isClass(ClassId id) const { return id != 0 && id <= classes_.size(); }
  // Marks a class an event refers to directly (not through a method) and returns its pool key.
  uint64_t markClassKey(ClassId id) {
    markClass(id);
    return id;
  }
  void markFrameType(FrameType type) { frameTypesUsed_ |= 1u << static_cast<unsigned>(type); }
  // The pool key of jdk.types.ThreadState "STATE_RUNNABLE" (the JVMTI value, as the JDK keys it), marked.
  uint64_t markRunnableState() {
    runnableStateUsed_ = true;
    return kRunnableStateKey;
  }

  // The pool key of `text` in this chunk's java.lang.String pool (0 for ""): strings events refer to, kept for
  // the chunk only, so that what they hold is bounded by the chunk's size.
  uint64_t markString(std::string_view text);

  // What the constants hold in memory, roughly (maps' nodes and buckets, names).
  size_t memoryBytes() const;

  // Upper estimate of the encoded size of this chunk's pools, for size-based rotation.
  uint64_t pendingBytes() const { return pendingBytes_; }

  // Appends one "typeId | count | (key | value)*" block per non-empty pool referenced in this chunk (empty
  // pools are omitted: the JDK rejects them) and returns the number of blocks.
  uint32_t writeReferencedPools(ByteBuffer& out) const;
  // Forgets this chunk's marks; the next chunk starts with nothing referenced.
  void startNextChunk();
  // Forgets every constant, between files (after startNextChunk): ids handed out before mean nothing now.
  void forgetAll();

 private:
  struct Symbol {
    const std::string* text;  // the key of symbolIds_ (node-based map: stable address)
    uint32_t mark = 0;
  };
  struct Package {
    uint32_t name;
    uint32_t mark = 0;
  };
  struct Class {
    uint32_t name, package;
    int32_t modifiers;
    bool hidden;
    uint32_t mark = 0;
  };
  struct Method {
    ClassId type;
    uint32_t name, descriptor;
    int32_t modifiers;
    bool hidden;
    uint32_t mark = 0;
  };
  struct Thread {
    ThreadInfo info;
    uint64_t key;
    uint32_t mark = 0;
  };
  struct RetiredThreadKey {  // a key this chunk's events used before updateThread re-keyed the thread
    uint64_t key;
    ThreadId thread;
  };
  struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  struct ClassKey {
    uint32_t name;
    int32_t modifiers;
    bool hidden;
    bool operator==(const ClassKey&) const = default;
  };
  struct MethodKey {
    ClassId type;
    uint32_t name, descriptor;
    int32_t modifiers;
    bool hidden;
    bool operator==(const MethodKey&) const = default;
  };
  struct ThreadKey {
    int64_t osThreadId, javaThreadId;
    bool operator==(const ThreadKey&) const = default;
  };
  struct KeyHash {
    size_t operator()(const ClassKey& k) const;
    size_t operator()(const MethodKey& k) const;
    size_t operator()(const ThreadKey& k) const;
  };

  uint32_t internSymbol(std::string_view text);
  uint32_t internPackage(std::string_view className);
  void markSymbol(uint32_t id);
  void markClass(ClassId id);
  void markMethodSlow(MethodId id);
  void markThreadSlow(ThreadId id);

  std::unordered_map<std::string, uint32_t, StringHash, std::equal_to<>> symbolIds_;
  std::unordered_map<uint32_t, uint32_t> packageIds_;  // package name symbol -> package id
  std::unordered_map<ClassKey, ClassId, KeyHash> classIds_;
  std::unordered_map<MethodKey, MethodId, KeyHash> methodIds_;
  std::unordered_map<ThreadKey, ThreadId, KeyHash> threadIds_;
  std::vector<Symbol> symbols_;
  std::vector<Package> packages_;
  std::vector<Class> classes_;
  std::vector<Method> methods_;
  std::vector<Thread> threads_;

  uint32_t generation_ = 1;
  std::vector<uint32_t> markedSymbols_, markedPackages_, markedClasses_, markedMethods_, markedThreads_;
  std::vector<RetiredThreadKey> retiredThreadKeys_;
  std::unordered_map<std::string, uint64_t, StringHash, std::equal_to<>> chunkStrings_;  // this chunk's: text -> key
  std::unordered_map<int64_t, uint64_t> virtualThreadKeys_;  // this chunk's: Java thread id -> pool key
  std::unordered_map<int64_t, std::string> virtualThreadNames_;  // the named ones: Java thread id -> name
  size_t virtualThreadNameBytes_ = 0;
  uint64_t lastThreadKey_ = 0;
  uint64_t lastStringKey_ = 0;
  uint32_t frameTypesUsed_ = 0;
  static constexpr uint64_t kRunnableStateKey = 5;  // JVMTI_JAVA_LANG_THREAD_STATE_RUNNABLE
  bool runnableStateUsed_ = false;
  uint64_t pendingBytes_ = 0;
};

}  // namespace jfrbpf::jfr
