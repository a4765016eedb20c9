#include "formats/jfr/writer/constant_pools.h"

#include <bit>
#include <functional>
#include <iterator>
#include <vector>

#include "base/error.h"
#include "base/heap_bytes.h"
#include "formats/jfr/writer/type_ids.h"

namespace jfrbpf::jfr {
namespace {

constexpr std::string_view kFrameTypeNames[] = {"Interpreted", "JIT compiled", "Inlined", "Native"};

size_t mix(size_t seed, uint64_t value) {
  return (seed ^ std::hash<uint64_t>{}(value)) * 0x9E3779B97F4A7C15ull + (seed >> 7);
}

// Encoded sizes are estimated generously: rotation only needs an upper bound.
constexpr uint64_t kSymbolOverhead = 16, kPackageBytes = 16, kClassBytes = 24, kMethodBytes = 28, kThreadOverhead = 32;

}  // namespace

size_t ConstantPools::KeyHash::operator()(const ClassKey& k) const {
  return mix(mix(mix(0, k.name), static_cast<uint32_t>(k.modifiers)), k.hidden);
}
size_t ConstantPools::KeyHash::operator()(const MethodKey& k) const {
  return mix(mix(mix(mix(mix(0, k.type), k.name), k.descriptor), static_cast<uint32_t>(k.modifiers)), k.hidden);
}
size_t ConstantPools::KeyHash::operator()(const ThreadKey& k) const {
  return mix(mix(0, static_cast<uint64_t>(k.osThreadId)), static_cast<uint64_t>(k.javaThreadId));
}

ConstantPools::ConstantPools() = default;

uint32_t ConstantPools::internSymbol(std::string_view text) {
  if (auto it = symbolIds_.find(text); it != symbolIds_.end()) return it->second;
  auto id = static_cast<uint32_t>(symbols_.size() + 1);
  auto [it, inserted] = symbolIds_.emplace(std::string(text), id);
  symbols_.push_back({&it->first});
  return id;
}

// Classes are named in internal form ("java/lang/String"); the package is everything before the last '/'.
// Names without one ("Main", "libc.so.6", "kernel") belong to the unnamed package: key 0.
uint32_t ConstantPools::internPackage(std::string_view className) {
  size_t slash = className.rfind('/');
  if (slash == std::string_view::npos || slash == 0) return 0;
  uint32_t name = internSymbol(className.substr(0, slash));
  auto [it, inserted] = packageIds_.try_emplace(name, static_cast<uint32_t>(packages_.size() + 1));
  if (inserted) packages_.push_back({name});
  return it->second;
}

ClassId ConstantPools::internClass(std::string_view internalName, int32_t modifiers, bool hidden) {
  uint32_t name = internSymbol(internalName);
  ClassKey key{name, modifiers, hidden};
  if (auto it = classIds_.find(key); it != classIds_.end()) return it->second;
  uint32_t package = internPackage(internalName);
  auto id = static_cast<ClassId>(classes_.size() + 1);
  classes_.push_back({name, package, modifiers, hidden});
  classIds_.emplace(key, id);
  return id;
}

MethodId ConstantPools::internMethod(ClassId type, std::string_view name, std::string_view descriptor,
                                     int32_t modifiers, bool hidden) {
  if (type == 0 || type > classes_.size())
    throw Error("internMethod: class id " + std::to_string(type) + " was not returned by internClass");
  MethodKey key{type, internSymbol(name), internSymbol(descriptor), modifiers, hidden};
  if (auto it = methodIds_.find(key); it != methodIds_.end()) return it->second;
  auto id = static_cast<MethodId>(methods_.size() + 1);
  methods_.push_back({type, key.name, key.descriptor, modifiers, hidden});
  methodIds_.emplace(key, id);
  return id;
}

ThreadId ConstantPools::internThread(const ThreadInfo& info) {
  ThreadKey key{info.osThreadId, info.javaThreadId};
  if (auto it = threadIds_.find(key); it != threadIds_.end()) return it->second;
  auto id = static_cast<ThreadId>(threads_.size() + 1);
  threads_.push_back({info, ++lastThreadKey_});
  threadIds_.emplace(key, id);
  return id;
}

void ConstantPools::updateThread(ThreadId id, const ThreadInfo& info) {
  if (!isThread(id)) throw Error("updateThread: thread id " + std::to_string(id) + " was not returned by internThread");
  Thread& thread = threads_[id - 1];
  const ThreadInfo& old = thread.info;
  if (old.osName == info.osName && old.osThreadId == info.osThreadId && old.javaName == info.javaName &&
      old.javaThreadId == info.javaThreadId && old.isVirtual == info.isVirtual)
    return;
  ThreadKey oldKey{old.osThreadId, old.javaThreadId};
  ThreadKey newKey{info.osThreadId, info.javaThreadId};
  if (!(oldKey == newKey)) {
    if (auto it = threadIds_.find(oldKey); it != threadIds_.end() && it->second == id) threadIds_.erase(it);
    threadIds_[newKey] = id;
  }
  if (thread.mark == generation_) {
    // Events of this chunk already carry the old key: keep it in this chunk's pool (with the new names).
    retiredThreadKeys_.push_back({thread.key, id});
    std::erase(markedThreads_, id);
    thread.mark = 0;
    pendingBytes_ += info.osName.size() + info.javaName.size() + kThreadOverhead;
  }
  thread.info = info;
  thread.key = ++lastThreadKey_;
}

uint64_t ConstantPools::markVirtualThread(int64_t javaThreadId) {
  auto [it, inserted] = virtualThreadKeys_.try_emplace(javaThreadId, 0);
  if (inserted) {
    it->second = ++lastThreadKey_;  // keys of platform threads and earlier chunks' virtual threads stay apart
    auto name = virtualThreadNames_.find(javaThreadId);
    pendingBytes_ += kThreadOverhead + (name != virtualThreadNames_.end() ? name->second.size() : 0);
  }
  return it->second;
}

void ConstantPools::nameVirtualThread(int64_t javaThreadId, std::string_view name) {
  if ((virtualThreadNames_.size() >= kMaxVirtualThreadNames && !virtualThreadNames_.contains(javaThreadId)) ||
      virtualThreadNameBytes_ + name.size() > kMaxVirtualThreadNameBytes) {
    virtualThreadNames_ = {};
    virtualThreadNameBytes_ = 0;
  }
  std::string& known = virtualThreadNames_[javaThreadId];
  if (virtualThreadKeys_.contains(javaThreadId)) pendingBytes_ += name.size() - std::min(name.size(), known.size());
  virtualThreadNameBytes_ += name.size() - std::min(name.size(), known.size());
  known.assign(name);
}

void ConstantPools::markSymbol(uint32_t id) {
  Symbol& symbol = symbols_[id - 1];
  if (symbol.mark == generation_) return;
  symbol.mark = generation_;
  markedSymbols_.push_back(id);
  pendingBytes_ += symbol.text->size() + kSymbolOverhead;
}

void ConstantPools::markClass(ClassId id) {
  Class& cls = classes_[id - 1];
  if (cls.mark == generation_) return;
  cls.mark = generation_;
  markedClasses_.push_back(id);
  pendingBytes_ += kClassBytes;
  markSymbol(cls.name);
  if (cls.package != 0) {
    Package& package = packages_[cls.package - 1];
    if (package.mark != generation_) {
      package.mark = generation_;
      markedPackages_.push_back(cls.package);
      pendingBytes_ += kPackageBytes;
      markSymbol(package.name);
    }
  }
}

void ConstantPools::markMethodSlow(MethodId id) {
  Method& method = methods_[id - 1];
  method.mark = generation_;
  markedMethods_.push_back(id);
  pendingBytes_ += kMethodBytes;
  markClass(method.type);
  markSymbol(method.name);
  markSymbol(method.descriptor);
}

void ConstantPools::markThreadSlow(ThreadId id) {
  Thread& thread = threads_[id - 1];
  thread.mark = generation_;
  markedThreads_.push_back(id);
  pendingBytes_ += thread.info.osName.size() + thread.info.javaName.size() + kThreadOverhead;
}

size_t ConstantPools::memoryBytes() const {
  size_t bytes = mapBytes(symbolIds_) + mapBytes(packageIds_) + mapBytes(classIds_) + mapBytes(methodIds_) +
                 mapBytes(threadIds_) + mapBytes(chunkStrings_) + mapBytes(virtualThreadKeys_) +
                 mapBytes(virtualThreadNames_);
  bytes += symbols_.capacity() * sizeof(Symbol) + packages_.capacity() * sizeof(Package) +
           classes_.capacity() * sizeof(Class) + methods_.capacity() * sizeof(Method) +
           threads_.capacity() * sizeof(Thread) + retiredThreadKeys_.capacity() * sizeof(RetiredThreadKey);
  for (const std::vector<uint32_t>* marked :
       {&markedSymbols_, &markedPackages_, &markedClasses_, &markedMethods_, &markedThreads_}) {
    bytes += marked->capacity() * sizeof(uint32_t);
  }
  for (const auto& [text, id] : symbolIds_) bytes += heapBytes(text);
  for (const auto& [text, key] : chunkStrings_) bytes += heapBytes(text);
  for (const auto& [id, name] : virtualThreadNames_) bytes += heapBytes(name);
  for (const Thread& thread : threads_) bytes += heapBytes(thread.info.osName) + heapBytes(thread.info.javaName);
  return bytes;
}

uint32_t ConstantPools::writeReferencedPools(ByteBuffer& out) const {
  uint32_t pools = 0;
  auto beginPool = [&](TypeId type, size_t count) {
    if (count == 0) return false;
    out.putVarint(type);
    out.putVarint(count);
    ++pools;
    return true;
  };

  auto writeThread = [&](uint64_t key, const ThreadInfo& info) {
    out.putVarint(key);
    out.putStringOrNull(info.osName);
    out.putLong(info.osThreadId);
    out.putStringOrNull(info.javaName);
    out.putLong(info.javaThreadId);
    out.putVarint(0);  // group: unknown from outside the JVM
    out.putBool(info.isVirtual);
  };
  if (beginPool(kThreadType, markedThreads_.size() + retiredThreadKeys_.size() + virtualThreadKeys_.size())) {
    for (ThreadId id : markedThreads_) writeThread(threads_[id - 1].key, threads_[id - 1].info);
    for (const auto& retired : retiredThreadKeys_) writeThread(retired.key, threads_[retired.thread - 1].info);
    for (const auto& [javaThreadId, key] : virtualThreadKeys_) {
      auto name = virtualThreadNames_.find(javaThreadId);
      out.putVarint(key);
      out.putNullString();  // osName
      out.putLong(0);       // osThreadId
      // javaName: JDK 25 writes "" for a virtual thread without a name
      out.putString(name != virtualThreadNames_.end() ? std::string_view(name->second) : std::string_view());
      out.putLong(javaThreadId);
      out.putVarint(0);     // group: JDK 25's "VirtualThreads"; this writer has no thread groups
      out.putBool(true);
    }
  }
  if (beginPool(kMethodType, markedMethods_.size())) {
    for (MethodId id : markedMethods_) {
      const Method& method = methods_[id - 1];
      out.putVarint(id);
      out.putVarint(method.type);
      out.putVarint(method.name);
      out.putVarint(method.descriptor);
      out.putInt(method.modifiers);
      out.putBool(method.hidden);
    }
  }
  if (beginPool(kClassType, markedClasses_.size())) {
    for (ClassId id : markedClasses_) {
      const Class& cls = classes_[id - 1];
      out.putVarint(id);
      out.putVarint(0);  // classLoader: not known from outside the JVM
      out.putVarint(cls.name);
      out.putVarint(cls.package);
      out.putInt(cls.modifiers);
      out.putBool(cls.hidden);
    }
  }
  if (beginPool(kPackageType, markedPackages_.size())) {
    for (uint32_t id : markedPackages_) {
      out.putVarint(id);
      out.putVarint(packages_[id - 1].name);
      out.putVarint(0);    // module: unknown
      out.putBool(false);  // exported: unknown
    }
  }
  if (beginPool(kSymbolType, markedSymbols_.size())) {
    for (uint32_t id : markedSymbols_) {
      out.putVarint(id);
      out.putString(*symbols_[id - 1].text);
    }
  }
  if (beginPool(kStringType, chunkStrings_.size())) {
    for (const auto& [text, key] : chunkStrings_) {
      out.putVarint(key);
      out.putString(text);
    }
  }
  if (beginPool(kFrameTypeType, static_cast<size_t>(std::popcount(frameTypesUsed_)))) {
    for (unsigned type = 0; type < std::size(kFrameTypeNames); ++type) {
      if (!(frameTypesUsed_ & (1u << type))) continue;
      out.putVarint(type);
      out.putString(kFrameTypeNames[type]);
    }
  }
  if (beginPool(kThreadStateType, runnableStateUsed_ ? 1 : 0)) {
    out.putVarint(kRunnableStateKey);
    out.putString("STATE_RUNNABLE");
  }
  return pools;
}

uint64_t ConstantPools::markString(std::string_view text) {
  if (text.empty()) return 0;
  if (auto it = chunkStrings_.find(text); it != chunkStrings_.end()) return it->second;
  // Keys are never reused: the JDK keeps what it resolved for a key in the previous chunk.
  const uint64_t key = ++lastStringKey_;
  chunkStrings_.emplace(std::string(text), key);
  pendingBytes_ += text.size() + kSymbolOverhead;
  return key;
}

void ConstantPools::startNextChunk() {
  ++generation_;
  markedSymbols_.clear();
  markedPackages_.clear();
  markedClasses_.clear();
  markedMethods_.clear();
  markedThreads_.clear();
  retiredThreadKeys_.clear();
  chunkStrings_ = {};
  virtualThreadKeys_ = {};  // replaced rather than cleared: a chunk of many virtual threads leaves no capacity
  frameTypesUsed_ = 0;
  runnableStateUsed_ = false;
  pendingBytes_ = 0;
}

void ConstantPools::forgetAll() {
  // Assigned afresh, not cleared: a file's constants should not keep the capacity a busier file needed.
  symbolIds_ = {};
  packageIds_ = {};
  classIds_ = {};
  methodIds_ = {};
  threadIds_ = {};
  symbols_ = {};
  packages_ = {};
  classes_ = {};
  methods_ = {};
  threads_ = {};
  lastThreadKey_ = 0;
  startNextChunk();
}

}  // namespace jfrbpf::jfr
