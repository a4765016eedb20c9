#include "userspace/record/files/push_spool.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <memory>

#include "base/error.h"
#include "userspace/record/files/output_directory.h"

namespace jfrbpf::record {
namespace {

// The directory `name` in `at`, made if missing; never a link.
UniqueFd openOrMakeDirectory(int at, const std::string& name, const std::string& path) {
  if (::mkdirat(at, name.c_str(), 0700) != 0 && errno != EEXIST) {
    throw Error("cannot make the push spool " + path + ": " + std::strerror(errno));
  }
  UniqueFd fd(::openat(at, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd) {
    throw Error("cannot open the push spool " + path + ": " + std::strerror(errno) +
                (errno == ELOOP || errno == ENOTDIR ? " (it is not a directory: remove it)" : ""));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !isTrustedOwner(st.st_uid) || (st.st_mode & 022) != 0) {
    throw Error("the push spool " + path + " belongs to another user or others may write to it: remove it");
  }
  return fd;
}

uint64_t wallNanos() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace

PushSpool::PushSpool(int outputDirectory, const std::string& outputPath, const std::string& name, uint64_t maxBytes)
    : path_(outputPath + "/" + kPushSpoolDirectory + "/" + name), maxBytes_(maxBytes) {
  UniqueFd top = openOrMakeDirectory(outputDirectory, kPushSpoolDirectory, outputPath + "/" + kPushSpoolDirectory);
  dir_ = openOrMakeDirectory(top.get(), name, path_);
  UniqueFd copy(::dup(dir_.get()));  // fdopendir takes its descriptor, and closedir closes it
  std::unique_ptr<DIR, int (*)(DIR*)> listing(copy ? ::fdopendir(copy.get()) : nullptr, ::closedir);
  if (!listing) throw Error("cannot list the push spool " + path_ + ": " + std::strerror(errno));
  copy.release();
  while (const dirent* entry = ::readdir(listing.get())) {
    struct stat st {};
    if (entry->d_name[0] == '.' || ::fstatat(dir_.get(), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (!S_ISREG(st.st_mode)) continue;
    files_.push_back({entry->d_name, static_cast<uint64_t>(st.st_size)});
    bytes_ += static_cast<uint64_t>(st.st_size);
  }
  std::sort(files_.begin(), files_.end(), [](const SpooledFile& a, const SpooledFile& b) { return a.name < b.name; });
}

size_t PushSpool::add(const std::string& path) {
  // Stamps stay unique and in order even when two files finish within a clock tick.
  lastStamp_ = std::max(lastStamp_ + 1, wallNanos());
  const std::string name = std::to_string(lastStamp_) + "-" + std::filesystem::path(path).filename().string();
  if (::linkat(AT_FDCWD, path.c_str(), dir_.get(), name.c_str(), 0) != 0) {
    throw Error("cannot keep " + path + " in the push spool " + path_ + ": " + std::strerror(errno));
  }
  struct stat st {};
  ::fstatat(dir_.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW);
  files_.push_back({name, static_cast<uint64_t>(st.st_size)});
  bytes_ += static_cast<uint64_t>(st.st_size);
  return dropBeyondBound();
}

size_t PushSpool::dropBeyondBound() {
  size_t dropped = 0;
  // The newest file stays whatever its size: it is what the backend most wants.
  while (bytes_ > maxBytes_ && files_.size() > 1) {
    auto oldest = std::find_if(files_.begin(), files_.end() - 1, [&](const SpooledFile& f) { return f.name != sending_; });
    if (oldest == files_.end() - 1) break;
    const std::string name = oldest->name;
    remove(name);
    ++dropped;
  }
  return dropped;
}

UniqueFd PushSpool::open(const std::string& name) {
  UniqueFd fd(::openat(dir_.get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  struct stat st {};
  char magic[4] = {};
  // A recording, and nothing else a link planted in the output directory could lead root to send.
  if (fd && ::fstat(fd.get(), &st) == 0 && S_ISREG(st.st_mode) && isTrustedOwner(st.st_uid) &&
      ::pread(fd.get(), magic, sizeof magic, 0) == sizeof magic && std::memcmp(magic, "FLR\0", 4) == 0) {
    return fd;
  }
  remove(name);
  return {};
}

void PushSpool::remove(const std::string& name) {
  ::unlinkat(dir_.get(), name.c_str(), 0);
  auto it = std::find_if(files_.begin(), files_.end(), [&](const SpooledFile& f) { return f.name == name; });
  if (it == files_.end()) return;
  bytes_ -= it->bytes;
  files_.erase(it);
}

}  // namespace jfrbpf::record
