#pragma once
// Instruments one method's Code attribute (see rewriter.h for what is inserted and why).
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "jvmsupport/classfile/class_model.h"
#include "jvmsupport/classfile/constant_pool.h"

namespace jfrbpf::classfile {

struct MethodToRewrite {
  std::string_view className;
  uint16_t majorVersion = 0;
  std::string_view name;
  std::string_view descriptor;
  uint16_t accessFlags = 0;
  std::span<const uint8_t> codeAttribute;  // the Code attribute's payload
  int32_t index = 0;                       // passed to the hooks
  int32_t recording = 0;                   // passed to exit
  uint16_t enterMethodref = 0;
  uint16_t exitMethodref = 0;
};

struct RewrittenCode {
  std::vector<uint8_t> codeAttribute;  // the new payload
  uint32_t widenedBranches = 0;
  uint32_t insertedFrames = 0;
};

// Throws ClassFileError with a user-readable reason when the method must be left untouched. May add
// constants to `pool` even then; unused constants are harmless.
RewrittenCode rewriteMethod(const MethodToRewrite& method, ConstantPool& pool);

}  // namespace jfrbpf::classfile
