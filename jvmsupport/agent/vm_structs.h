#pragma once
// HotSpot's self-description tables (gHotSpotVMStructs, gHotSpotVMTypes, gHotSpotVMIntConstants,
// gHotSpotVMLongConstants), read in-process through libjvm's exported symbols. They are static data of the
// JVM itself; the structures they describe are read only through safe_memory.h.
#include <jvmti.h>

#include <cstdint>

namespace jfrbpf::agent {

struct VmStructEntry {
  const char* typeName;
  const char* fieldName;
  const char* typeString;
  bool isStatic;
  uint64_t offset;
  uint64_t address;
};

struct VmTypeEntry {
  const char* typeName;
  const char* superclassName;
  bool isOop;
  bool isInteger;
  bool isUnsigned;
  uint64_t size;
};

struct VmConstantEntry {
  const char* name;
  bool isLong;
  int64_t value;
};

class VmStructs {
 public:
  // Locates the tables through the library that implements `jvmti`; false if this JVM exports none.
  bool init(jvmtiEnv* jvmti);
  bool available() const { return structs_ != 0; }

  template <typename F>
  void forEachField(F&& visit) const {
    VmStructEntry e{};
    for (size_t i = 0; field(i, e); ++i) visit(e);
  }
  template <typename F>
  void forEachType(F&& visit) const {
    VmTypeEntry e{};
    for (size_t i = 0; type(i, e); ++i) visit(e);
  }
  template <typename F>
  void forEachConstant(F&& visit) const {
    VmConstantEntry e{};
    for (size_t i = 0; intConstant(i, e); ++i) visit(e);
    for (size_t i = 0; longConstant(i, e); ++i) visit(e);
  }

  // Non-static field; `typeString` (may be null) receives its declared C++ type.
  bool fieldOffset(const char* typeName, const char* fieldName, uint64_t& offset,
                   const char** typeString = nullptr) const;
  bool staticAddress(const char* typeName, const char* fieldName, uint64_t& address) const;
  bool typeSize(const char* typeName, uint64_t& size) const;

 private:
  bool field(size_t index, VmStructEntry& out) const;
  bool type(size_t index, VmTypeEntry& out) const;
  bool intConstant(size_t index, VmConstantEntry& out) const;
  bool longConstant(size_t index, VmConstantEntry& out) const;

  uintptr_t structs_ = 0;
  uint64_t sTypeName_ = 0, sFieldName_ = 0, sTypeString_ = 0, sIsStatic_ = 0, sOffset_ = 0, sAddress_ = 0,
           sStride_ = 0;
  uintptr_t types_ = 0;
  uint64_t tTypeName_ = 0, tSuper_ = 0, tIsOop_ = 0, tIsInteger_ = 0, tIsUnsigned_ = 0, tSize_ = 0, tStride_ = 0;
  uintptr_t ints_ = 0;
  uint64_t iName_ = 0, iValue_ = 0, iStride_ = 0;
  uintptr_t longs_ = 0;
  uint64_t lName_ = 0, lValue_ = 0, lStride_ = 0;
};

}  // namespace jfrbpf::agent
