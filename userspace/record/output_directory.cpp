#include "userspace/record/output_directory.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>

#include "userspace/base/error.h"

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

void makeOutputDirectory(const std::string& dir, const char* why, std::optional<FileOwner> owner) {
  auto refuse = [&](const std::string& problem) {
    throw Error("cannot use " + dir + " as the output directory of " + why + ": " + problem + " (change -o)",
                ErrorKind::Usage);
  };
  std::string name = dir;
  while (name.size() > 1 && name.ends_with('/')) name.pop_back();  // "out/" would follow a link named out
  const std::filesystem::path path(name);
  std::error_code ec;
  if (path.has_parent_path() && path.parent_path() != path.root_path()) {
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) refuse(ec.message());
  }
  if (::mkdir(name.c_str(), kPrivateDirectoryMode) == 0) {
    UniqueFd made(::open(name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!made || (owner && ::fchown(made.get(), owner->uid, owner->gid) != 0)) refuse(std::strerror(errno));
    return;
  }
  if (errno != EEXIST) refuse(std::strerror(errno));
  struct stat st {};
  if (::lstat(name.c_str(), &st) != 0) refuse(std::strerror(errno));
  if (S_ISLNK(st.st_mode)) refuse("it is a symbolic link, which jfrbpf does not follow; give the directory it names");
  if (!S_ISDIR(st.st_mode)) refuse("not a directory");
}

void prepareOutputDirectory(const std::string& dir, const char* why, std::optional<FileOwner> owner) {
  makeOutputDirectory(dir, why, owner);
  requireRoomToRecord(dir);
}

}  // namespace jfrbpf::record
