#pragma once
// The directory a recording is written into, checked before anything is loaded or attached and watched while
// the recording runs: a disk already full stops jfrbpf before it touches a target, and a directory removed
// (or moved away) mid-run stops the recording at once, since nothing written there can be kept any more.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "userspace/base/file_owner.h"
#include "userspace/base/unique_fd.h"

namespace jfrbpf::record {

// What a recording needs free to write its first chunks (a chunk of a second at the default rate is
// 10-40 KiB, the metadata included).
inline constexpr uint64_t kRoomToRecordBytes = 64 * 1024;

// Throws jfrbpf::Error (exit code 1) naming the directory, what is free and the fix when `directory` has
// not kRoomToRecordBytes free for this process (quotas and root's reserve as the file system counts them).
void requireRoomToRecord(const std::string& directory);

// An output directory that exists with room to record: made if missing (0700, handed to `owner`), never a
// symbolic link (a planted link must not lead root's files elsewhere). Throws jfrbpf::Error naming it, `why`
// it is needed (the option that asked for a directory) and a fix.
void prepareOutputDirectory(const std::string& dir, const char* why, std::optional<FileOwner> owner = std::nullopt);

// The same checks and creation without the room check (dump); throws a usage error.
void makeOutputDirectory(const std::string& dir, const char* why, std::optional<FileOwner> owner);

class OutputDirectoryWatch {
 public:
  // Opens `directory` now: later checks compare against this one.
  explicit OutputDirectoryWatch(std::string directory);

  // Throws jfrbpf::Error when the directory was removed, or its path leads elsewhere now (moved, replaced).
  // Says once on stderr when it became read-only: the recording goes on in its part file, which can only be
  // renamed into place if the directory is writable again by the end.
  void check();

 private:
  std::string path_;
  UniqueFd dir_;
  dev_t device_ = 0;
  ino_t inode_ = 0;
  bool readOnlyReported_ = false;
};

}  // namespace jfrbpf::record
