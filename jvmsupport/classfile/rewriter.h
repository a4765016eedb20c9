#pragma once
// Bytecode instrumentation for method timing and tracing (JEP 520 semantics, done from outside the JDK).
//
// Each selected method gets, for the int the caller assigned to it (its "method index"), the recording
// number R of HookConfig and a new local S (two slots, after all the method's own):
//   on entry                     push index; invokestatic <HookClass>.enter(I)J; lstore S
//   before every *return         push index; push R; lload S; invokestatic <HookClass>.exit(IIJ)V
//   on every exceptional exit    a catch-all handler, after every existing one in the exception table,
//                                covering the original code: the same exit call, then athrow
// so every enter is followed by exactly one exit, with one exception in constructors (below). The hooks
// are ordinary static methods: the JIT inlines them, so timing costs no call at all.
//
// Constructors in class files with stack maps (version 50+) get two catch-all handlers. While `this` is
// uninitialized the verifier's flagThisUninit is set, and a handler's frame must carry it too (JVMS
// 4.10.1.4: the flags must be a subset), so code before super()/this() is covered by a handler whose
// frame holds uninitializedThis, code after it by one whose frame holds nothing. The super()/this()
// invokespecial itself can be covered by neither: HotSpot checks a handler over it both with `this`
// uninitialized and initialized (ClassVerifier::verify_invoke_init, then the exception check after the
// instruction), which no frame satisfies. So when the superclass constructor itself throws, the exit is
// not reported: consumers must tolerate an enter without an exit there (JDK 25's own tracer, which uses
// the same ranges, simply loses that invocation). Version 45-49 classes are verified by type inference,
// which accepts one handler over the whole constructor, super() call included.
//
// The rewriter fixes everything the insertion moves: branch offsets (widening goto to goto_w and a far
// if<cond> to if<!cond> over a goto_w, with a new stack map frame computed for the new branch target),
// switch padding, the exception table, StackMapTable (re-encoded; uninitialized(offset) types follow their
// `new`), LineNumberTable, LocalVariable(Type)Table and type annotations on code. Every stack map frame
// gets S as a long (the locals before it padded with top), max_stack grows by at most four (five in a
// method that needed less than one) and max_locals by two.
//
// Methods are left untouched, with a reason, when they have no code (abstract, native), use jsr/ret, would
// exceed 65535 bytes of code, or cannot be rewritten with certainty (malformed input). Never throws: this
// runs inside the target JVM's ClassFileLoadHook. No global state; safe to call from many threads.
//
// Restoring a class needs nothing from here: retransforming it while returning no new bytes from the
// ClassFileLoadHook gives the JVM back its original class file bytes.
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace jfrbpf::classfile {

// Newest class file version handled: Java 25. Newer classes are returned untouched with an error.
inline constexpr uint16_t kMaxSupportedMajorVersion = 69;

struct MethodInfo {
  std::string name;
  std::string descriptor;
  uint16_t accessFlags = 0;
  std::vector<std::string> annotations;  // RuntimeVisibleAnnotations types, "Lcom/foo/Ann;"
};

struct ClassInfo {
  std::string name;  // internal form, "com/foo/Outer$Inner"
  uint16_t majorVersion = 0;
  uint16_t minorVersion = 0;
  uint16_t accessFlags = 0;
  std::vector<std::string> annotations;  // RuntimeVisibleAnnotations types
  std::vector<MethodInfo> methods;
};

// What a filter needs to decide; on malformed input `info` is empty and `error` says why.
// Only runtime-visible annotations are listed: the JVM (and so JDK 25's own filter) sees no others.
struct ClassInfoResult {
  std::optional<ClassInfo> info;
  std::string error;
};
ClassInfoResult readClassInfo(std::span<const uint8_t> classBytes) noexcept;

struct HookConfig {
  std::string hookClass;  // internal name, e.g. "jfrbpf/agent/Hooks"; its enter/exit must be public static
  std::string enterMethod = "enter";  // (I)J
  std::string exitMethod = "exit";    // (IIJ)V
  int32_t recording = 0;              // passed to every exit
};

// Returns the index to pass to the hooks for a method to instrument, or nullopt to leave it alone.
using MethodSelector = std::function<std::optional<int32_t>(const ClassInfo&, const MethodInfo&)>;

struct InstrumentedMethod {
  int32_t index = 0;
  std::string className;  // internal form
  std::string methodName;
  std::string descriptor;
};

struct SkippedMethod {
  std::string methodName;
  std::string descriptor;
  std::string reason;
};

struct RewriteStats {
  uint32_t widenedBranches = 0;  // short branches that had to become goto_w (or if<!cond> + goto_w)
  uint32_t insertedFrames = 0;   // stack map frames added for new branch targets and handlers
};

struct RewriteResult {
  std::string error;          // set when the class as a whole was left untouched
  std::vector<uint8_t> bytes;  // the new class file; empty when nothing was instrumented
  std::vector<InstrumentedMethod> instrumented;
  std::vector<SkippedMethod> skipped;  // selected methods left untouched, with the reason
  RewriteStats stats;

  bool modified() const { return !bytes.empty(); }
};

RewriteResult rewriteClass(std::span<const uint8_t> classBytes, const HookConfig& hooks,
                           const MethodSelector& select) noexcept;

}  // namespace jfrbpf::classfile
