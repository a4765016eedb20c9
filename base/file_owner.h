#pragma once
// Who the files and directories jfrbpf creates belong to. Recordings hold stacks, thread names and classes
// of processes other users may not see: they are private (0600 files, 0700 directories), root's, or under
// sudo the invoking user's, handed over by fchown on the open file before it gets its name.
#include <sys/types.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>

namespace jfrbpf {

inline constexpr mode_t kPrivateFileMode = 0600;
inline constexpr mode_t kPrivateDirectoryMode = 0700;

struct FileOwner {
  uid_t uid = 0;
  gid_t gid = 0;
  bool operator==(const FileOwner&) const = default;
};

// The user who ran `sudo jfrbpf`, when we run as root under sudo.
inline std::optional<FileOwner> sudoUser() {
  const char* uid = std::getenv("SUDO_UID");
  const char* gid = std::getenv("SUDO_GID");
  if (uid == nullptr || gid == nullptr || geteuid() != 0) return std::nullopt;
  char* uidEnd = nullptr;
  char* gidEnd = nullptr;
  unsigned long u = std::strtoul(uid, &uidEnd, 10), g = std::strtoul(gid, &gidEnd, 10);
  if (*uid == '\0' || *uidEnd != '\0' || *gid == '\0' || *gidEnd != '\0' || u == 0) return std::nullopt;
  return FileOwner{static_cast<uid_t>(u), static_cast<gid_t>(g)};
}

}  // namespace jfrbpf
