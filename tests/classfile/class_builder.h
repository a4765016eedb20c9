#pragma once
// Builds small class files by hand for tests: shapes javac no longer produces (jsr/ret, version 49 code,
// oversized methods) and exact byte layouts the rewriter's output can be checked against.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "jvmsupport/classfile/bytes.h"

namespace jfrbpf::classfile::testing {

struct MethodSpec {
  uint16_t accessFlags = 0x0009;  // public static
  std::string name;
  std::string descriptor;
  bool hasCode = true;
  uint16_t maxStack = 2;
  uint16_t maxLocals = 2;
  std::vector<uint8_t> code;
  struct Handler {
    uint16_t start, end, handler, catchType;
  };
  std::vector<Handler> handlers;
  std::vector<std::pair<std::string, std::vector<uint8_t>>> codeAttributes;    // e.g. StackMapTable payload
  std::vector<std::pair<std::string, std::vector<uint8_t>>> methodAttributes;  // e.g. RuntimeVisibleAnnotations
};

class ClassBuilder {
 public:
  explicit ClassBuilder(std::string name, uint16_t majorVersion = 52, std::string superName = "java/lang/Object")
      : major_(majorVersion) {
    thisClass_ = classRef(name);
    superClass_ = classRef(superName);
  }

  uint16_t utf8(std::string_view text) {
    for (size_t i = 0; i < entries_.size(); ++i) {
      if (entries_[i].first == 1 && entries_[i].second == std::vector<uint8_t>(text.begin(), text.end())) {
        return static_cast<uint16_t>(i + 1);
      }
    }
    return add(1, std::vector<uint8_t>(text.begin(), text.end()));
  }
  uint16_t classRef(std::string_view name) { return add(7, u2(utf8(name))); }
  uint16_t methodRef(std::string_view owner, std::string_view name, std::string_view descriptor) {
    uint16_t owning = classRef(owner);
    std::vector<uint8_t> nat = u2(utf8(name));
    append(nat, u2(utf8(descriptor)));
    uint16_t natIndex = add(12, nat);
    std::vector<uint8_t> ref = u2(owning);
    append(ref, u2(natIndex));
    return add(10, ref);
  }
  uint16_t integer(int32_t value) {
    std::vector<uint8_t> bytes = u2(static_cast<uint16_t>(static_cast<uint32_t>(value) >> 16));
    append(bytes, u2(static_cast<uint16_t>(value)));
    return add(3, bytes);
  }

  void addMethod(MethodSpec method) { methods_.push_back(std::move(method)); }
  void addClassAttribute(std::string name, std::vector<uint8_t> info) {
    classAttributes_.emplace_back(std::move(name), std::move(info));
  }

  std::vector<uint8_t> build() {
    // Intern every name first: the constant pool is written before the members that use it.
    for (const MethodSpec& m : methods_) {
      utf8(m.name), utf8(m.descriptor);
      if (m.hasCode) utf8("Code");
      for (const auto& a : m.codeAttributes) utf8(a.first);
      for (const auto& a : m.methodAttributes) utf8(a.first);
    }
    for (const auto& a : classAttributes_) utf8(a.first);
    Writer out;
    out.u4(0xCAFEBABE);
    out.u2(0);
    out.u2(major_);
    out.u2(static_cast<uint32_t>(entries_.size() + 1));
    for (const auto& [tag, payload] : entries_) {
      out.u1(tag);
      if (tag == 1) out.u2(static_cast<uint32_t>(payload.size()));
      out.append(payload);
    }
    out.u2(0x0021);  // public super
    out.u2(thisClass_);
    out.u2(superClass_);
    out.u2(0);  // interfaces
    out.u2(0);  // fields
    out.u2(static_cast<uint32_t>(methods_.size()));
    for (const MethodSpec& m : methods_) {
      out.u2(m.accessFlags);
      out.u2(utf8(m.name));
      out.u2(utf8(m.descriptor));
      out.u2(static_cast<uint32_t>(m.methodAttributes.size() + (m.hasCode ? 1 : 0)));
      if (m.hasCode) {
        Writer code;
        code.u2(m.maxStack);
        code.u2(m.maxLocals);
        code.u4(static_cast<uint32_t>(m.code.size()));
        code.append(m.code);
        code.u2(static_cast<uint32_t>(m.handlers.size()));
        for (const auto& h : m.handlers) {
          code.u2(h.start), code.u2(h.end), code.u2(h.handler), code.u2(h.catchType);
        }
        code.u2(static_cast<uint32_t>(m.codeAttributes.size()));
        for (const auto& [name, info] : m.codeAttributes) {
          code.u2(utf8(name));
          code.u4(static_cast<uint32_t>(info.size()));
          code.append(info);
        }
        out.u2(utf8("Code"));
        out.u4(static_cast<uint32_t>(code.size()));
        out.append(code.bytes());
      }
      for (const auto& [name, info] : m.methodAttributes) {
        out.u2(utf8(name));
        out.u4(static_cast<uint32_t>(info.size()));
        out.append(info);
      }
    }
    out.u2(static_cast<uint32_t>(classAttributes_.size()));
    for (const auto& [name, info] : classAttributes_) {
      out.u2(utf8(name));
      out.u4(static_cast<uint32_t>(info.size()));
      out.append(info);
    }
    return out.take();
  }

  static std::vector<uint8_t> u2(uint16_t value) {
    return {static_cast<uint8_t>(value >> 8), static_cast<uint8_t>(value)};
  }
  static void append(std::vector<uint8_t>& to, const std::vector<uint8_t>& bytes) {
    to.insert(to.end(), bytes.begin(), bytes.end());
  }

 private:
  uint16_t add(uint8_t tag, std::vector<uint8_t> payload) {
    for (size_t i = 0; i < entries_.size(); ++i) {
      if (entries_[i].first == tag && entries_[i].second == payload) return static_cast<uint16_t>(i + 1);
    }
    entries_.emplace_back(tag, std::move(payload));
    return static_cast<uint16_t>(entries_.size());
  }

  uint16_t major_;
  uint16_t thisClass_ = 0;
  uint16_t superClass_ = 0;
  std::vector<std::pair<uint8_t, std::vector<uint8_t>>> entries_;
  std::vector<MethodSpec> methods_;
  std::vector<std::pair<std::string, std::vector<uint8_t>>> classAttributes_;
};

}  // namespace jfrbpf::classfile::testing
