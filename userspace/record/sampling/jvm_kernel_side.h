#pragma once
// What one JVM's Java frames and agent events need of the kernel side: its layout and its threads'
// JavaThread* in the walker's maps, the uprobes on its code-heap frees and on its agent's trace stub, and the
// off-CPU flush its agent runs. BpfSampler is the one that loads; the parts above it (jvm/, output/) know
// only this, so that they can be built, and tested, without BPF.
#include <cstdint>
#include <string>

#include "base/unique_fd.h"
#include "bpf/hotspot_abi.h"

namespace jfrbpf::record {

class JvmKernelSide {
 public:
  virtual ~JvmKernelSide() = default;

  // The layout of the JVM in process `tgid`, for the stack walker's Java frames.
  virtual void setHotspot(uint32_t tgid, const jfrbpf_hotspot& layout) = 0;
  // The walker takes process `tgid` for a native process from now on (its JVM layout is dropped).
  virtual void forgetHotspot(uint32_t tgid) = 0;
  // The JavaThread* of thread `tid`, where the walker finds its JavaFrameAnchor.
  virtual void setJavaThread(uint32_t tid, uint64_t javaThread) = 0;
  virtual void forgetJavaThread(uint32_t tid) = 0;
  // Uprobes on the functions with which the code heap of JVM `tgid` frees blocks, in its libjvm at `libjvmPath`
  // (a path this process can open). With them the walker trusts the code blobs it checked until the JVM next
  // frees code (set jfrbpf_hotspot.code_frees_watched after this). False, with the reason, if they cannot be
  // attached: the walker then checks blobs again in every walk.
  virtual bool watchCodeFrees(uint32_t tgid, const std::string& libjvmPath, std::string& whyNot) = 0;
  // A uprobe on process `pid`'s trace stub: the file behind the path, at this file offset, taking only the
  // calls the agent makes for `agentSession` (another recorder of the same JVM has its own). Throws
  // jfrbpf::Error.
  virtual void attachTraceProbe(uint32_t pid, const std::string& path, uint64_t fileOffset, uint32_t agentSession) = 0;
  // Whether the trace probe of process `tgid` was hit.
  virtual bool traceProbeHit(uint32_t tgid) const = 0;
  // Whether off-CPU waits are recorded (--off-cpu), and an iterator that flushes the waits of process `tgid`'s
  // threads still going on, to be read in that process (by its JVM agent).
  virtual bool offCpuLoaded() const = 0;
  virtual UniqueFd offCpuFlushIterator(uint32_t tgid) = 0;
};

}  // namespace jfrbpf::record
