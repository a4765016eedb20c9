#include "jvmsupport/agent/vm_structs.h"

#include <cstring>

#include "jvmsupport/agent/loaded_symbols.h"

namespace jfrbpf::agent {

namespace {

// No table has more entries than this; a missing terminator must not run us off the end.
constexpr size_t kMaxEntries = 100000;

template <typename T>
bool symbolValue(const LoadedSymbols& lib, const char* name, T& out) {
  const void* address = lib.find(name);
  if (address == nullptr) return false;
  std::memcpy(&out, address, sizeof out);
  return true;
}

template <typename T>
T at(uintptr_t entry, uint64_t offset) {
  T v;
  std::memcpy(&v, reinterpret_cast<const void*>(entry + offset), sizeof v);
  return v;
}

bool same(const char* a, const char* b) { return a != nullptr && std::strcmp(a, b) == 0; }

}  // namespace

bool VmStructs::init(jvmtiEnv* jvmti) {
  // The library that implements JVMTI is the JVM (libjvm.so, wherever and however it was loaded).
  LoadedSymbols lib;
  if (!lib.init(reinterpret_cast<const void*>(jvmti->functions->GetVersionNumber))) return false;
  bool ok = symbolValue(lib, "gHotSpotVMStructs", structs_) &&
            symbolValue(lib, "gHotSpotVMStructEntryTypeNameOffset", sTypeName_) &&
            symbolValue(lib, "gHotSpotVMStructEntryFieldNameOffset", sFieldName_) &&
            symbolValue(lib, "gHotSpotVMStructEntryTypeStringOffset", sTypeString_) &&
            symbolValue(lib, "gHotSpotVMStructEntryIsStaticOffset", sIsStatic_) &&
            symbolValue(lib, "gHotSpotVMStructEntryOffsetOffset", sOffset_) &&
            symbolValue(lib, "gHotSpotVMStructEntryAddressOffset", sAddress_) &&
            symbolValue(lib, "gHotSpotVMStructEntryArrayStride", sStride_) &&
            symbolValue(lib, "gHotSpotVMTypes", types_) &&
            symbolValue(lib, "gHotSpotVMTypeEntryTypeNameOffset", tTypeName_) &&
            symbolValue(lib, "gHotSpotVMTypeEntrySuperclassNameOffset", tSuper_) &&
            symbolValue(lib, "gHotSpotVMTypeEntryIsOopTypeOffset", tIsOop_) &&
            symbolValue(lib, "gHotSpotVMTypeEntryIsIntegerTypeOffset", tIsInteger_) &&
            symbolValue(lib, "gHotSpotVMTypeEntryIsUnsignedOffset", tIsUnsigned_) &&
            symbolValue(lib, "gHotSpotVMTypeEntrySizeOffset", tSize_) &&
            symbolValue(lib, "gHotSpotVMTypeEntryArrayStride", tStride_) &&
            symbolValue(lib, "gHotSpotVMIntConstants", ints_) &&
            symbolValue(lib, "gHotSpotVMIntConstantEntryNameOffset", iName_) &&
            symbolValue(lib, "gHotSpotVMIntConstantEntryValueOffset", iValue_) &&
            symbolValue(lib, "gHotSpotVMIntConstantEntryArrayStride", iStride_) &&
            symbolValue(lib, "gHotSpotVMLongConstants", longs_) &&
            symbolValue(lib, "gHotSpotVMLongConstantEntryNameOffset", lName_) &&
            symbolValue(lib, "gHotSpotVMLongConstantEntryValueOffset", lValue_) &&
            symbolValue(lib, "gHotSpotVMLongConstantEntryArrayStride", lStride_);
  if (!ok || structs_ == 0 || types_ == 0 || sStride_ == 0 || tStride_ == 0 || iStride_ == 0 || lStride_ == 0) {
    structs_ = 0;
    return false;
  }
  return true;
}

bool VmStructs::field(size_t index, VmStructEntry& out) const {
  if (structs_ == 0 || index >= kMaxEntries) return false;
  uintptr_t e = structs_ + index * sStride_;
  out.typeName = at<const char*>(e, sTypeName_);
  out.fieldName = at<const char*>(e, sFieldName_);
  if (out.typeName == nullptr && out.fieldName == nullptr) return false;
  out.typeString = at<const char*>(e, sTypeString_);
  out.isStatic = at<int32_t>(e, sIsStatic_) != 0;
  out.offset = at<uint64_t>(e, sOffset_);
  out.address = reinterpret_cast<uintptr_t>(at<void*>(e, sAddress_));
  return true;
}

bool VmStructs::type(size_t index, VmTypeEntry& out) const {
  if (types_ == 0 || index >= kMaxEntries) return false;
  uintptr_t e = types_ + index * tStride_;
  out.typeName = at<const char*>(e, tTypeName_);
  if (out.typeName == nullptr) return false;
  out.superclassName = at<const char*>(e, tSuper_);
  out.isOop = at<int32_t>(e, tIsOop_) != 0;
  out.isInteger = at<int32_t>(e, tIsInteger_) != 0;
  out.isUnsigned = at<int32_t>(e, tIsUnsigned_) != 0;
  out.size = at<uint64_t>(e, tSize_);
  return true;
}

bool VmStructs::intConstant(size_t index, VmConstantEntry& out) const {
  if (ints_ == 0 || index >= kMaxEntries) return false;
  uintptr_t e = ints_ + index * iStride_;
  out.name = at<const char*>(e, iName_);
  if (out.name == nullptr) return false;
  out.isLong = false;
  out.value = at<int32_t>(e, iValue_);
  return true;
}

bool VmStructs::longConstant(size_t index, VmConstantEntry& out) const {
  if (longs_ == 0 || index >= kMaxEntries) return false;
  uintptr_t e = longs_ + index * lStride_;
  out.name = at<const char*>(e, lName_);
  if (out.name == nullptr) return false;
  out.isLong = true;
  out.value = at<int64_t>(e, lValue_);
  return true;
}

bool VmStructs::fieldOffset(const char* typeName, const char* fieldName, uint64_t& offset,
                            const char** typeString) const {
  VmStructEntry e{};
  for (size_t i = 0; field(i, e); ++i) {
    if (!e.isStatic && same(e.typeName, typeName) && same(e.fieldName, fieldName)) {
      offset = e.offset;
      if (typeString != nullptr) *typeString = e.typeString;
      return true;
    }
  }
  return false;
}

bool VmStructs::staticAddress(const char* typeName, const char* fieldName, uint64_t& address) const {
  VmStructEntry e{};
  for (size_t i = 0; field(i, e); ++i) {
    if (e.isStatic && same(e.typeName, typeName) && same(e.fieldName, fieldName)) {
      address = e.address;
      return address != 0;
    }
  }
  return false;
}

bool VmStructs::typeSize(const char* typeName, uint64_t& size) const {
  VmTypeEntry e{};
  for (size_t i = 0; type(i, e); ++i) {
    if (same(e.typeName, typeName)) {
      size = e.size;
      return true;
    }
  }
  return false;
}

}  // namespace jfrbpf::agent
