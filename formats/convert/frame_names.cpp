#include "formats/convert/frame_names.h"

namespace jfrbpf::convert {

std::string_view frameKindName(FrameKind kind) {
  switch (kind) {
    case FrameKind::kInterpreted: return "Interpreted";
    case FrameKind::kJitCompiled: return "JIT compiled";
    case FrameKind::kInlined: return "Inlined";
    case FrameKind::kNative: return "Native";
    case FrameKind::kKernel: return "Kernel";
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

// One field type of a descriptor starting at `pos`, appended as Java source spells its simple name.
bool appendFieldType(std::string_view descriptor, size_t& pos, std::string& out) {
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
      out += slash == std::string_view::npos ? name : name.substr(slash + 1);
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
