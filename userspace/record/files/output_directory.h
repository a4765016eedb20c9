#pragma once
// The directory a recording is written into, checked before anything is loaded or attached and watched while
// the recording runs: a disk already full stops jfrbpf before it touches a target, and a directory removed
// (or moved away) mid-run stops the recording at once, since nothing written there can be kept any more.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "base/file_owner.h"
#include "base/unique_fd.h"

namespace jfrbpf::record {

// What a recording needs free to write its first chunks (a chunk of a second at the default rate is
// 10-40 KiB, the metadata included).
inline constexpr uint64_t kRoomToRecordBytes = 64 * 1024;

// Throws jfrbpf::Error (exit code 1) naming the directory, what is free and the fix when `directory` has
// not kRoomToRecordBytes free for this process (quotas and root's reserve as the file system counts them).
void requireRoomToRecord(const std::string& directory);

// Whether `uid` may own an output directory and the recordings retention counts in it: root, this process's
// user, or under sudo the invoking user (to whom recordings are handed). Anyone else could swap what such a
// directory holds or plant files in it, and root deletes files there.
bool isTrustedOwner(uid_t uid);

// An output directory that exists with room to record: made if missing (0700, handed to `owner`). Root writes
// and deletes files there, so no symbolic link is followed anywhere on its path (a planted one must not lead
// root's files elsewhere), and an existing one must be a trusted owner's and writable by no one else.
// Throws jfrbpf::Error naming it, `why` it is needed (the option that asked for a directory) and a fix.
void prepareOutputDirectory(const std::string& dir, const char* why, std::optional<FileOwner> owner = std::nullopt);

// The same checks and creation without the room check (dump); throws a usage error.
void makeOutputDirectory(const std::string& dir, const char* why, std::optional<FileOwner> owner);

// The existing output directory `dir`, opened for reading after the same checks; the descriptor stays the
// directory they passed for, wherever its path leads later. Throws a usage error.
UniqueFd openOutputDirectory(const std::string& dir, const char* why);

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
