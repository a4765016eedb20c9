#include "formats/convert/frame_names.h"

#include "formats/jfr/reader/standard_types.h"

namespace jfrbpf::convert {

std::string_view frameKindName(FrameKind kind) {
  switch (kind) {
    case FrameKind::kInterpreted: return "Interpreted";
    case FrameKind::kJitCompiled: return "JIT compiled";
    case FrameKind::kInlined: return "Inlined";
    case FrameKind::kNative: return "Native";
    case FrameKind::kKernel: return "Kernel";
    case FrameKind::kAllocatedClass: return "Allocated class";
    case FrameKind::kLockClass: return "Lock class";
    case FrameKind::kUnknown: break;
  }
  return "Unknown";
}

std::string_view frameKindTag(FrameKind kind) {
  switch (kind) {
    case FrameKind::kInterpreted: return "[int]";
    case FrameKind::kJitCompiled: return "[j]";
    case FrameKind::kInlined: return "[i]";
    case FrameKind::kNative: return "[n]";
    case FrameKind::kKernel: return "[k]";
    case FrameKind::kAllocatedClass: return "[a]";
    case FrameKind::kLockClass: return "[l]";
    case FrameKind::kUnknown: break;
  }
  return "[?]";
}

FrameKind frameKindFromType(std::string_view type) {
  if (type == "Interpreted") return FrameKind::kInterpreted;
  if (type == "JIT compiled" || type == "C1 compiled" || type == "C2 compiled") return FrameKind::kJitCompiled;
  if (type == "Inlined") return FrameKind::kInlined;
  if (type == "Native" || type == "C++") return FrameKind::kNative;
  if (type == "Kernel") return FrameKind::kKernel;
  return FrameKind::kUnknown;
}

bool isNativeCode(std::string_view frameType, std::string_view className, std::string_view descriptor) {
  FrameKind kind = frameKindFromType(frameType);
  if (kind == FrameKind::kKernel) return true;
  if (kind != FrameKind::kNative) return false;
  return className.find('/') == std::string_view::npos && (descriptor.empty() || descriptor == "()V");
}

namespace {

// One field type of a descriptor starting at `pos`, appended as Java source spells it: a class by its simple
// name ("String") in parameter lists, by its qualified one ("java.lang.String") where it stands alone.
bool appendFieldType(std::string_view descriptor, size_t& pos, std::string& out, bool qualified = false) {
  int dimensions = 0;
  while (pos < descriptor.size() && descriptor[pos] == '[') {
    ++dimensions;
    ++pos;
  }
  if (pos >= descriptor.size() || dimensions > 255) return false;
  char c = descriptor[pos++];
  switch (c) {
    case 'B': out += "byte"; break;
    case 'C': out += "char"; break;
    case 'D': out += "double"; break;
    case 'F': out += "float"; break;
    case 'I': out += "int"; break;
    case 'J': out += "long"; break;
    case 'S': out += "short"; break;
    case 'Z': out += "boolean"; break;
    case 'L': {
      size_t end = descriptor.find(';', pos);
      if (end == std::string_view::npos || end == pos) return false;
      std::string_view name = descriptor.substr(pos, end - pos);
      size_t slash = name.rfind('/');
      if (qualified) {
        out += jfr::reader::javaClassName(name);
      } else {
        out += slash == std::string_view::npos ? name : name.substr(slash + 1);
      }
      pos = end + 1;
      break;
    }
    default: return false;
  }
  for (int i = 0; i < dimensions; ++i) out += "[]";
  return true;
}

}  // namespace

bool javaParameterList(std::string_view descriptor, std::string& out) {
  out.clear();
  if (descriptor.empty() || descriptor[0] != '(') return false;
  size_t pos = 1;
  bool first = true;
  while (pos < descriptor.size() && descriptor[pos] != ')') {
    if (!first) out += ", ";
    first = false;
    if (!appendFieldType(descriptor, pos, out)) return false;
  }
  return pos < descriptor.size();
}

std::string javaTypeName(std::string_view internalName) {
  // An array class is named by its descriptor; anything else by its class name.
  if (!internalName.starts_with('[')) return jfr::reader::javaClassName(internalName);
  std::string out;
  size_t pos = 0;
  if (!appendFieldType(internalName, pos, out, true) || pos != internalName.size()) {
    return jfr::reader::javaClassName(internalName);  // malformed: shown as it is rather than guessed
  }
  return out;
}

std::string javaMethodName(std::string_view className, std::string_view methodName, std::string_view descriptor) {
  std::string out;
  out.reserve(className.size() + methodName.size() + 16);
  for (char c : className) out += c == '/' ? '.' : c;
  if (!out.empty()) out += '.';
  out += methodName.empty() ? std::string_view("[unknown]") : methodName;
  std::string parameters;
  if (javaParameterList(descriptor, parameters)) {
    out += '(';
    out += parameters;
    out += ')';
  }
  return out;
}

bool isMarkerFrame(std::string_view className, std::string_view methodName) {
  return className == "jfrbpf" && methodName.starts_with('[');
}

bool isTruncationMarker(std::string_view className, std::string_view methodName) {
  return isMarkerFrame(className, methodName) &&
         methodName.starts_with(kTruncatedRoot.substr(0, kTruncatedRoot.size() - 1));
}

std::string nativeFrameName(std::string_view library, std::string_view symbol) {
  std::string out(symbol.empty() ? std::string_view("[unknown]") : symbol);
  if (!library.empty()) {
    out += " (";
    out += library;
    out += ')';
  }
  return out;
}

}  // namespace jfrbpf::convert
