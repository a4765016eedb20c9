#include "userspace/record/files/output_directory.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <vector>

#include "base/error.h"

namespace jfrbpf::record {
namespace {

// What statvfs says this process may still write there (root may use the file system's reserve).
std::optional<uint64_t> freeBytes(const std::string& directory) {
  struct statvfs fs {};
  if (::statvfs(directory.c_str(), &fs) != 0) return std::nullopt;
  const uint64_t blocks = geteuid() == 0 ? fs.f_bfree : fs.f_bavail;
  return blocks * fs.f_frsize;
}

[[noreturn]] void throwNoRoom(const std::string& directory, int err) {
  std::optional<uint64_t> free = freeBytes(directory);
  std::string figures = free ? std::to_string(*free / 1024) + " KiB free, " : "";
  throw Error("cannot record into '" + directory + "': " + std::strerror(err) + " (" + figures + "a recording needs " +
              std::to_string(kRoomToRecordBytes / 1024) + " KiB; free disk space or choose another output path)");
}

[[noreturn]] void refuse(const std::string& dir, const char* why, const std::string& problem) {
  throw Error("cannot use " + dir + " as the output directory of " + why + ": " + problem, ErrorKind::Usage);
}

// Whether `gid` may be a group that can write to an output directory: root's, this process's, or the sudo
// user's own. User private groups (the default of Debian, Ubuntu and Fedora) give a user's directories mode
// 0775 with no one else in the group.
bool isTrustedGroup(gid_t gid) {
  const std::optional<FileOwner> sudo = sudoUser();
  return gid == 0 || gid == ::getegid() || (sudo && gid == sudo->gid);
}

// Refuses the directory open at `fd` unless only trusted owners can change what it holds.
void requireTrusted(int fd, const std::string& dir, const char* why) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) refuse(dir, why, std::strerror(errno));
  const std::string risk = ", who could swap or plant files in it (root writes and removes files there): ";
  if (!isTrustedOwner(st.st_uid)) {
    refuse(dir, why, "it belongs to uid " + std::to_string(st.st_uid) + risk +
                         "choose a directory of root's or of the user running sudo, or a new one for jfrbpf to make");
  }
  const bool groupWrites = (st.st_mode & S_IWGRP) && !isTrustedGroup(st.st_gid);
  if ((st.st_mode & S_IWOTH) || groupWrites) {
    refuse(dir, why, "it is writable by " +
                         ((st.st_mode & S_IWOTH) ? std::string("all users") : "group " + std::to_string(st.st_gid)) +
                         risk + "chmod go-w it, or choose a new directory for jfrbpf to make");
  }
}

// The names between the slashes of `dir`; "." for "/" itself.
std::vector<std::string> partsOf(const std::string& dir) {
  std::vector<std::string> parts;
  for (size_t start = 0; start < dir.size();) {
    size_t end = std::min(dir.find('/', start), dir.size());
    if (end > start) parts.push_back(dir.substr(start, end - start));
    start = end + 1;
  }
  if (parts.empty()) parts.push_back(".");
  return parts;
}

// Why `part`, in the directory open at `at`, could not be opened as a directory (`err`).
std::string whyNotOpened(int at, const std::string& part, int err) {
  struct stat st {};
  if (::fstatat(at, part.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
    return "'" + part + "' is a symbolic link, which jfrbpf follows nowhere on the path; give the path it leads to";
  }
  return err == ENOTDIR ? "'" + part + "' is not a directory (change -o)" : std::strerror(err);
}

// `dir` reached one name at a time with O_NOFOLLOW: no symbolic link anywhere on its path is followed, since
// one planted in a parent leads root's files elsewhere as surely as one in its place. Then checked
// (requireTrusted). With `make`, what is missing is made on the way: parents as mkdir -p would but writable
// by no one else, the directory itself private, handed to `owner` once checked.
UniqueFd openDirectory(const std::string& dir, const char* why, bool make, std::optional<FileOwner> owner) {
  UniqueFd at(::open(dir.starts_with('/') ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!at) refuse(dir, why, std::strerror(errno));
  const std::vector<std::string> parts = partsOf(dir);
  bool made = false;
  for (size_t i = 0; i < parts.size(); ++i) {
    const bool last = i + 1 == parts.size();
    made = make && ::mkdirat(at.get(), parts[i].c_str(), last ? kPrivateDirectoryMode : 0755) == 0;
    if (make && !made && errno != EEXIST) refuse(dir, why, std::strerror(errno));
    const int how = last ? O_RDONLY : O_PATH;  // the directory itself is listed, its parents only passed through
    UniqueFd next(::openat(at.get(), parts[i].c_str(), how | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next) refuse(dir, why, whyNotOpened(at.get(), parts[i], errno));
    at = std::move(next);
  }
  requireTrusted(at.get(), dir, why);
  if (made && owner && ::fchown(at.get(), owner->uid, owner->gid) != 0) refuse(dir, why, std::strerror(errno));
  return at;
}

}  // namespace

void requireRoomToRecord(const std::string& directory) {
  // Reserving the room in a file that has no name asks the file system itself (quotas included) and leaves
  // nothing behind, whatever happens to this process.
  UniqueFd probe(::open(directory.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600));
  if (!probe && (errno == ENOSPC || errno == EDQUOT)) throwNoRoom(directory, errno);
  if (probe) {
    if (::fallocate(probe.get(), 0, 0, static_cast<off_t>(kRoomToRecordBytes)) == 0) return;
    if (errno == ENOSPC || errno == EDQUOT) throwNoRoom(directory, errno);
  }
  // No unnamed files or no fallocate here (NFS, some FUSE): the file system's own count.
  std::optional<uint64_t> free = freeBytes(directory);
  if (free && *free < kRoomToRecordBytes) throwNoRoom(directory, ENOSPC);
}

OutputDirectoryWatch::OutputDirectoryWatch(std::string directory)
    : path_(std::move(directory)), dir_(::open(path_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)) {
  struct stat st {};
  if (dir_ && ::fstat(dir_.get(), &st) == 0) {
    device_ = st.st_dev;
    inode_ = st.st_ino;
  } else {
    dir_.reset();  // the recording's own file creation says what is wrong with it
  }
}

void OutputDirectoryWatch::check() {
  if (!dir_) return;
  struct stat held {}, byPath {};
  if (::fstat(dir_.get(), &held) == 0 && held.st_nlink == 0) {
    throw Error("the output directory '" + path_ + "' was removed while recording: what was recorded went with it "
                "(record into a directory that stays)");
  }
  if (::stat(path_.c_str(), &byPath) != 0 || byPath.st_dev != device_ || byPath.st_ino != inode_) {
    throw Error("the output directory '" + path_ + "' was moved or replaced while recording: stopped; the chunks "
                "written so far stay in its *.part.jfr file wherever that directory went "
                "(`jfrbpf recover` finishes it)");
  }
  struct statvfs fs {};
  if (!readOnlyReported_ && ::statvfs(path_.c_str(), &fs) == 0 && (fs.f_flag & ST_RDONLY)) {
    readOnlyReported_ = true;
    std::fprintf(stderr,
                 "jfrbpf: the output directory '%s' became read-only: the recording goes on in its *.part.jfr file, "
                 "and is renamed into place only if the directory is writable again when it ends\n",
                 path_.c_str());
  }
}

bool isTrustedOwner(uid_t uid) {
  const std::optional<FileOwner> sudo = sudoUser();
  return uid == 0 || uid == ::geteuid() || (sudo && uid == sudo->uid);
}

void makeOutputDirectory(const std::string& dir, const char* why, std::optional<FileOwner> owner) {
  openDirectory(dir, why, true, owner);
}

UniqueFd openOutputDirectory(const std::string& dir, const char* why) {
  return openDirectory(dir, why, false, std::nullopt);
}

void prepareOutputDirectory(const std::string& dir, const char* why, std::optional<FileOwner> owner) {
  makeOutputDirectory(dir, why, owner);
  requireRoomToRecord(dir);
}

}  // namespace jfrbpf::record
