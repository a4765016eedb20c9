#pragma once
// The JVM's VMStructs, VMTypes and constants as the agent sent them, looked up by name: anything a stack
// walker needs (offsets, sizes, static addresses) without a new agent. Values come from the target and
// are only as trustworthy as it is; callers bound what they derive from them. Lookups do not allocate.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "jvmsupport/protocol/records.h"

namespace jfrbpf::jvm {

struct VmField {
  std::string typeString;
  bool isStatic = false;
  uint64_t offset = 0;   // non-static
  uint64_t address = 0;  // static
};

struct VmTypeInfo {
  std::string superclass;
  uint8_t flags = 0;  // protocol::kVmType* flags
  uint64_t size = 0;
};

class VmStructsTable {
 public:
  void add(const protocol::VmStructField& r);
  void add(const protocol::VmType& r);
  void add(const protocol::VmConstant& r);

  const VmField* field(std::string_view typeName, std::string_view fieldName) const;
  std::optional<uint64_t> fieldOffset(std::string_view typeName, std::string_view fieldName) const;
  std::optional<uint64_t> staticAddress(std::string_view typeName, std::string_view fieldName) const;
  const VmTypeInfo* type(std::string_view typeName) const;
  std::optional<int64_t> constant(std::string_view name) const;

  size_t fieldCount() const { return fieldCount_; }
  size_t typeCount() const { return types_.size(); }
  size_t constantCount() const { return constants_.size(); }
  size_t approximateBytes() const { return bytes_; }

 private:
  std::map<std::string, std::map<std::string, VmField, std::less<>>, std::less<>> fields_;  // type -> field
  std::map<std::string, VmTypeInfo, std::less<>> types_;
  std::map<std::string, int64_t, std::less<>> constants_;
  size_t fieldCount_ = 0;
  size_t bytes_ = 0;
};

}  // namespace jfrbpf::jvm
