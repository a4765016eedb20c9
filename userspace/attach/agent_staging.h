#pragma once
// Making jfrbpf's agent library loadable by a JVM that may live in another mount namespace: either reuse the
// agent the JVM already has mapped (ld.so then hands back the loaded library by its name, even once the
// file is gone, and HotSpot calls Agent_OnAttach on it again), or copy the library into a fresh,
// unpredictably named directory in the target's /tmp, created without following any link the target could
// plant. The caller removes the copy as soon as the JVM has loaded it (the mapping stays valid), so a crash
// leaves nothing behind; the directory is locked while its maker lives, and a copy whose maker died between
// copying and loading is removed by the next attach to that JVM.
#include <string>

#include "base/unique_fd.h"
#include "userspace/attach/target_process.h"

namespace jfrbpf::attach {

// The staged copy's file name; it starts with kAgentFileNamePrefix so a later attach finds and reuses it.
inline constexpr std::string_view kStagedAgentFileName = "libjfrbpf-agent.so";
// The directory it is staged in, in the target's /tmp: this, then random hex.
inline constexpr std::string_view kStagingDirectoryPrefix = "jfrbpf-";

// Whether `name` is one a staging directory gets: kStagingDirectoryPrefix and 18 hex digits (a directory is
// made under "." and that name, and renamed to it once locked).
bool isStagingName(std::string_view name);

class StagedAgent {
 public:
  // Reuses a mapped jfrbpf agent if the target has one, else copies `hostLibraryPath` (a path in our own mount
  // namespace) into the target's /tmp. Throws AttachError: UnsafeTarget (/tmp is a link or not usable),
  // AgentLoadFailed (/tmp is noexec, or the library cannot be read), PermissionDenied, NoSuchProcess.
  static StagedAgent prepare(const TargetProcess& process, const std::string& hostLibraryPath);

  StagedAgent(StagedAgent&& other) noexcept = default;
  StagedAgent& operator=(StagedAgent&& other) noexcept;
  StagedAgent(const StagedAgent&) = delete;
  StagedAgent& operator=(const StagedAgent&) = delete;
  ~StagedAgent() { remove(); }

  // The absolute path to pass to "load", as the target sees it.
  const std::string& pathInTarget() const { return pathInTarget_; }
  // True when the target already had a jfrbpf agent mapped and nothing was copied.
  bool reused() const { return reused_; }
  // Deletes the copy and its directory (idempotent). A JVM that loaded the library keeps its mapping.
  void remove() noexcept;

 private:
  StagedAgent() = default;

  std::string pathInTarget_;
  UniqueFd tmpDir_;      // the target's /tmp, holding our directory
  UniqueFd stagingDir_;  // our directory; invalid when reused
  std::string dirName_;
  bool reused_ = false;
};

}  // namespace jfrbpf::attach
