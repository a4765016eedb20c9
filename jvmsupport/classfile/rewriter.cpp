#include "jvmsupport/classfile/rewriter.h"

#include <new>

#include "jvmsupport/classfile/annotations.h"
#include "jvmsupport/classfile/class_model.h"
#include "jvmsupport/classfile/method_rewriter.h"

namespace jfrbpf::classfile {
namespace {

constexpr uint16_t kMinSupportedMajorVersion = 45;
constexpr uint32_t kMagic = 0xCAFEBABE;

std::vector<std::string> visibleAnnotations(const ClassModel& model, const std::vector<Attribute>& attributes) {
  if (auto attribute = model.find(attributes, "RuntimeVisibleAnnotations")) {
    return annotationTypes(attribute->info, model.pool);
  }
  return {};
}

ClassInfo describe(const ClassModel& model) {
  ClassInfo info;
  info.name = model.name();
  info.majorVersion = model.majorVersion;
  info.minorVersion = model.minorVersion;
  info.accessFlags = model.accessFlags;
  info.annotations = visibleAnnotations(model, model.attributes);
  info.methods.reserve(model.methods.size());
  for (const Member& method : model.methods) {
    info.methods.push_back(MethodInfo{std::string(model.pool.utf8(method.nameIndex)),
                                      std::string(model.pool.utf8(method.descriptorIndex)), method.accessFlags,
                                      visibleAnnotations(model, method.attributes)});
  }
  return info;
}

// A name usable in a CONSTANT_Class / NameAndType: no separators or characters the JVM refuses there.
bool isPlainName(std::string_view name, bool allowSlash) {
  if (name.empty()) return false;
  for (char c : name) {
    if (c == '.' || c == ';' || c == '[' || c == '<' || c == '>' || static_cast<unsigned char>(c) < 0x21) {
      return false;
    }
    if (c == '/' && !allowSlash) return false;
  }
  return name.front() != '/' && name.back() != '/' && name.find("//") == std::string_view::npos;
}

void writeMember(Writer& out, const Member& member, const ConstantPool& pool,
                 const std::vector<uint8_t>* replacementCode) {
  out.u2(member.accessFlags);
  out.u2(member.nameIndex);
  out.u2(member.descriptorIndex);
  out.u2(static_cast<uint32_t>(member.attributes.size()));
  for (const Attribute& attribute : member.attributes) {
    std::span<const uint8_t> info = attribute.info;
    if (replacementCode != nullptr && pool.utf8(attribute.nameIndex) == "Code") info = *replacementCode;
    out.u2(attribute.nameIndex);
    out.u4(static_cast<uint32_t>(info.size()));
    out.append(info);
  }
}

std::vector<uint8_t> serialize(const ClassModel& model, const std::vector<std::optional<std::vector<uint8_t>>>& code) {
  Writer out;
  out.u4(kMagic);
  out.u2(model.minorVersion);
  out.u2(model.majorVersion);
  model.pool.write(out);
  out.append(model.headerAndFields);
  out.u2(static_cast<uint32_t>(model.methods.size()));
  for (size_t i = 0; i < model.methods.size(); ++i) {
    writeMember(out, model.methods[i], model.pool, code[i] ? &*code[i] : nullptr);
  }
  out.append(model.attributesBytes);
  return out.take();
}

RewriteResult rewrite(std::span<const uint8_t> classBytes, const HookConfig& hooks, const MethodSelector& select) {
  RewriteResult result;
  ClassModel model;
  ClassInfo info;
  try {
    model = parseClass(classBytes);
    info = describe(model);
  } catch (const ClassFileError& e) {
    result.error = std::string("malformed class file: ") + e.what();
    return result;
  }
  if (model.majorVersion < kMinSupportedMajorVersion || model.majorVersion > kMaxSupportedMajorVersion) {
    result.error = "unsupported class file version " + std::to_string(model.majorVersion);
    return result;
  }
  if (!isPlainName(hooks.hookClass, true) || !isPlainName(hooks.enterMethod, false) ||
      !isPlainName(hooks.exitMethod, false)) {
    result.error = "invalid hook class or method name";
    return result;
  }
  if (info.name == hooks.hookClass) {
    result.error = "the hook class itself is never instrumented";
    return result;
  }

  std::vector<std::optional<std::vector<uint8_t>>> newCode(model.methods.size());
  uint16_t enterRef = 0;
  uint16_t exitRef = 0;
  for (size_t i = 0; i < model.methods.size(); ++i) {
    const MethodInfo& methodInfo = info.methods[i];
    std::optional<int32_t> index = select(info, methodInfo);
    if (!index) continue;
    auto skip = [&](std::string reason) {
      result.skipped.push_back(SkippedMethod{methodInfo.name, methodInfo.descriptor, std::move(reason)});
    };
    const Member& method = model.methods[i];
    std::optional<Attribute> code;
    int codeAttributes = 0;
    for (const Attribute& attribute : method.attributes) {
      if (model.pool.utf8(attribute.nameIndex) == "Code") ++codeAttributes, code = attribute;
    }
    if (codeAttributes == 0) {
      skip("no bytecode (abstract or native)");
      continue;
    }
    if (codeAttributes > 1) {
      skip("more than one Code attribute");
      continue;
    }
    try {
      if (enterRef == 0) {
        enterRef = model.pool.addMethodref(hooks.hookClass, hooks.enterMethod, "(I)J");
        exitRef = model.pool.addMethodref(hooks.hookClass, hooks.exitMethod, "(IIJ)V");
      }
      MethodToRewrite request{info.name,          model.majorVersion, methodInfo.name, methodInfo.descriptor,
                              method.accessFlags,  code->info,        *index,          hooks.recording,
                              enterRef,            exitRef};
      RewrittenCode rewritten = rewriteMethod(request, model.pool);
      newCode[i] = std::move(rewritten.codeAttribute);
      result.stats.widenedBranches += rewritten.widenedBranches;
      result.stats.insertedFrames += rewritten.insertedFrames;
      result.instrumented.push_back(InstrumentedMethod{*index, info.name, methodInfo.name, methodInfo.descriptor});
    } catch (const ClassFileError& e) {
      skip(e.what());
    }
  }
  if (!result.instrumented.empty()) result.bytes = serialize(model, newCode);
  return result;
}

}  // namespace

ClassInfoResult readClassInfo(std::span<const uint8_t> classBytes) noexcept {
  try {
    return ClassInfoResult{describe(parseClass(classBytes)), {}};
  } catch (const ClassFileError& e) {
    return ClassInfoResult{std::nullopt, std::string("malformed class file: ") + e.what()};
  } catch (...) {  // std::bad_alloc: a message short enough not to allocate
    return ClassInfoResult{std::nullopt, "out of memory"};
  }
}

RewriteResult rewriteClass(std::span<const uint8_t> classBytes, const HookConfig& hooks,
                           const MethodSelector& select) noexcept {
  RewriteResult failed;
  try {
    return rewrite(classBytes, hooks, select);
  } catch (const std::bad_alloc&) {
    failed.error = "out of memory";  // short enough not to allocate
  } catch (...) {
    failed.error = "the method selector threw; class left untouched";
  }
  return failed;
}

}  // namespace jfrbpf::classfile
