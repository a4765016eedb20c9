#pragma once
// How frames are named and classified everywhere jfrbpf shows them (views, collapsed stacks, flame graphs,
// pprof): Java methods as the JDK's `jfr` tool prints them, native code as "symbol (library)".
#include <cstdint>
#include <string>
#include <string_view>

namespace jfrbpf::convert {

// The JDK's frame types plus the two kinds of native code jfrbpf tells apart. Kernel frames are stored as
// "Native" in the file (so every JFR tool understands them); they are recognised by their position and
// owner (see classifyStack in profile_builder.cpp). kAllocatedClass is no code: the class of an allocation
// sample, which jfrbpf puts over the allocating stack as async-profiler does, so that it is drawn apart.
// kLockClass likewise: the class of the object a thread waited for (a monitor's, or the blocker it parked on),
// put over the waiting stack.
enum class FrameKind : uint8_t {
  kInterpreted,
  kJitCompiled,
  kInlined,
  kNative,
  kKernel,
  kUnknown,
  kAllocatedClass,
  kLockClass
};

// "Interpreted", "JIT compiled", "Inlined", "Native", "Kernel", "Unknown", "Allocated class", "Lock class".
std::string_view frameKindName(FrameKind kind);
// Short tags for stack listings: "[int]", "[j]", "[i]", "[n]", "[k]", "[?]", "[a]", "[l]".
std::string_view frameKindTag(FrameKind kind);
// FrameType strings of the JDK ("JIT compiled"), async-profiler ("C1 compiled", "C++", "Kernel") and others.
FrameKind frameKindFromType(std::string_view type);

// True when a frame names native code (a library or the kernel) rather than a Java method: jfrbpf stores the
// library as the class, with no package separator, and the symbol with the descriptor "()V". Java methods
// declared `native` keep their Java class and signature and are not native code in this sense.
bool isNativeCode(std::string_view frameType, std::string_view className, std::string_view descriptor);

// "java/lang/String", "indexOf", "(II)I" -> "java.lang.String.indexOf(int, int)", as `jfr print` shows it.
// An unreadable descriptor leaves the parameter list out rather than guessing.
std::string javaMethodName(std::string_view className, std::string_view methodName, std::string_view descriptor);
// "(I[Ljava/lang/String;J)V" -> "int, String[], long"; false if the descriptor is malformed.
bool javaParameterList(std::string_view descriptor, std::string& out);
// A class by its internal name as Java spells it: "[B" -> "byte[]", "[[Ljava/lang/String;" ->
// "java.lang.String[][]", "com/foo/Bar" -> "com.foo.Bar" (what `jfr print` shows for a java.lang.Class).
std::string javaTypeName(std::string_view internalName);
// A frame jfrbpf writes where frames are missing, class "jfrbpf": "[truncated: no unwind info]" where a
// truncated stack's outermost frames would be, "[frames skipped: ...]" where it left some out. It is shown by
// that name alone.
bool isMarkerFrame(std::string_view className, std::string_view methodName);
bool isTruncationMarker(std::string_view className, std::string_view methodName);
// The root a truncated stack without such a frame (from another recorder, or deeper than its depth) is shown
// under.
inline constexpr std::string_view kTruncatedRoot = "[truncated]";

// "memcpy", "libc.so.6" -> "memcpy (libc.so.6)"; the library is left out when unknown.
std::string nativeFrameName(std::string_view library, std::string_view symbol);

}  // namespace jfrbpf::convert
