#pragma once
// Classes and methods of one JVM, as the agent reported them. Lookup by jmethodID (compiled frames) and
// by Method* (interpreter frames); both keys may be reused after class unloading or redefinition, so each
// keeps its versions with the time they appeared, and a lookup takes the version current at the sample's
// time. Lookups do not allocate. Unloaded classes and their methods are dropped once no sample can still
// name them, so that a JVM that defines classes without end (hidden classes, scripting engines) does not
// grow the table without end.
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "jvmsupport/protocol/records.h"

namespace jfrbpf::jvm {

struct JavaClass {
  uint64_t classId = 0;
  std::string name;  // internal form: com/foo/Bar, hidden classes com/foo/Bar$$Lambda/0x...
  uint32_t modifiers = 0;
  bool hidden = false;
  uint64_t unloadTicks = UINT64_MAX;  // when the JVM unloaded it
  std::vector<uint32_t> methodSlots;  // its methods' places in the table, every version
};

struct JavaMethod {
  uint64_t methodId = 0;   // jmethodID
  uint64_t methodPtr = 0;  // Method*, 0 if the agent could not read it
  uint64_t codeStart = 0;  // bytecode 0
  uint32_t codeSize = 0;
  uint32_t modifiers = 0;
  const JavaClass* klass = nullptr;  // never null for methods in the table
  std::string name;
  std::string signature;
  uint64_t sinceTicks = 0;  // 0: existed before the session (replayed)

  // Source line of `bci` (negative: method entry, reported like bci 0), -1 without a line table.
  int32_t lineForBci(int32_t bci) const;
  // bci of an interpreter frame's bcp, -1 if it is outside this method's bytecode.
  int32_t bciForBcp(uint64_t bcp) const;

  std::vector<protocol::LineEntry> lines;  // sorted by startBci

 private:
  friend class MethodTable;
  uint32_t olderSameId_ = UINT32_MAX;
  uint32_t olderSamePtr_ = UINT32_MAX;
};

class MethodTable {
 public:
  // Records a class; a class id seen before is replaced.
  const JavaClass& addClass(const protocol::ClassInfo& record);
  // Records a method (with `sinceTicks` already on our clock). A duplicate of the current version (same
  // jmethodID, Method* and name) is ignored — replays resend everything. A method whose class record was
  // lost gets a nameless placeholder class, so frames still show the method.
  void addMethod(const protocol::MethodInfo& record, uint64_t sinceTicks);

  // The JVM unloaded the class at `ticks`; unknown ids are ignored (the class record was lost).
  void unloadClass(uint64_t classId, uint64_t ticks);
  // Drops the classes unloaded before `ticks`, with their methods. Returns how many classes went.
  size_t forgetUnloadedBefore(uint64_t ticks);

  const JavaMethod* byId(uint64_t methodId, uint64_t ticks) const;
  const JavaMethod* byPointer(uint64_t methodPtr, uint64_t ticks) const;
  // A class by its id (loaded or unloaded but not forgotten yet); null if never reported.
  const JavaClass* classById(uint64_t classId) const {
    auto found = classes_.find(classId);
    return found == classes_.end() || found->second.name.empty() ? nullptr : &found->second;
  }

  size_t methodCount() const { return methods_.size() - freeSlots_.size(); }
  size_t classCount() const { return classes_.size(); }
  // Rough heap footprint, for the session's memory bound.
  size_t approximateBytes() const { return bytes_; }

  template <typename F>
  void forEachMethod(F&& visit) const {
    for (const JavaMethod& m : methods_)
      if (m.klass != nullptr) visit(m);
  }

 private:
  const JavaMethod* pick(uint32_t newest, uint64_t ticks, bool byId) const;
  void dropMethod(uint32_t slot);

  std::unordered_map<uint64_t, JavaClass> classes_;
  std::deque<JavaMethod> methods_;
  std::unordered_map<uint64_t, uint32_t> newestById_;
  std::unordered_map<uint64_t, uint32_t> newestByPtr_;
  std::vector<uint32_t> freeSlots_;    // of methods_, for the next methods
  std::vector<uint64_t> unloaded_;     // class ids, in the order they were unloaded
  size_t bytes_ = 0;
};

}  // namespace jfrbpf::jvm
