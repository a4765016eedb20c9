#include "userspace/attach/agent_staging.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "userspace/attach/attach_error.h"
#include "userspace/attach/jvm_facts.h"
#include "userspace/attach/mapped_files.h"
#include "userspace/proc/process_dir.h"
#include "userspace/proc/root_files.h"

namespace jfrbpf::attach {
namespace {

constexpr int kNameAttempts = 16;
constexpr size_t kMaxLibrarySize = 512 * 1024 * 1024;
constexpr mode_t kDirectoryMode = 0711;  // the JVM's user may traverse, not list or add
constexpr mode_t kLibraryMode = 0755;    // readable and mappable by any user, writable by none but root
// A directory is made under "." + its name and renamed once locked, so that no attach, in this process or
// another, ever sees an unlocked "jfrbpf-" directory of a live recorder. One left under its first name
// (its maker died within that moment) is removed once it is this old.
constexpr time_t kUnrenamedOrphanSeconds = 60;

constexpr size_t kRandomBytes = 9;

std::string randomDirectoryName() {
  unsigned char bytes[kRandomBytes];
  if (::getrandom(bytes, sizeof bytes, 0) != static_cast<ssize_t>(sizeof bytes)) {
    throw systemError("getrandom for the agent directory name");
  }
  std::string name(kStagingDirectoryPrefix);
  for (unsigned char b : bytes) {
    char hex[3];
    std::snprintf(hex, sizeof hex, "%02x", b);
    name += hex;
  }
  return name;
}

void writeAll(int fd, const char* data, size_t size, const std::string& what) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw systemError("cannot write " + what);
    data += n;
    size -= static_cast<size_t>(n);
  }
}

void copyFile(int from, int to, const std::string& what) {
  char buffer[128 * 1024];
  while (true) {
    ssize_t n = ::read(from, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw systemError("cannot read the agent library for " + what);
    if (n == 0) return;
    writeAll(to, buffer, static_cast<size_t>(n), what);
  }
}

UniqueFd openSourceLibrary(const std::string& hostLibraryPath) {
  UniqueFd source(::open(hostLibraryPath.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat st {};
  if (!source || ::fstat(source.get(), &st) != 0) {
    int err = errno;
    throw AttachError(AttachFailure::AgentLoadFailed, "cannot read the jfrbpf agent library " + hostLibraryPath + ": " +
                                                          std::strerror(err) + "; check the installation");
  }
  if (!S_ISREG(st.st_mode) || static_cast<size_t>(st.st_size) > kMaxLibrarySize) {
    throw AttachError(AttachFailure::AgentLoadFailed,
                      hostLibraryPath + " is not a plausible agent library (not a regular file, or too large)");
  }
  return source;
}

UniqueFd openTargetTmp(const TargetProcess& process) {
  UniqueFd root = process.openRoot();
  UniqueFd tmp = proc::openInRoot(root.get(), "tmp", O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  if (!tmp) {
    int err = errno;
    throw AttachError(AttachFailure::UnsafeTarget,
                      "cannot use /tmp of " + process.describe() + " for the agent library: " +
                          (err == ELOOP ? std::string("it is a symbolic link, which jfrbpf does not follow")
                                        : std::string(std::strerror(err))) +
                          "; make /tmp a directory in that container");
  }
  struct statvfs fs {};
  if (::fstatvfs(tmp.get(), &fs) == 0 && (fs.f_flag & ST_NOEXEC)) {
    throw AttachError(AttachFailure::AgentLoadFailed,
                      "/tmp of " + process.describe() +
                          " is mounted noexec, so the JVM cannot map the agent library from there; mount it exec or "
                          "start the JVM with -agentpath");
  }
  return tmp;
}

// Removes the copies that jfrbpf processes which died before they could remove them left in this /tmp: each
// live copy's directory is locked by the process that made it (before it gets its name), so a directory we
// can lock has no owner.
// Only our own names are touched, never through a link the target could plant.
void removeOrphanedCopies(const TargetProcess& process) {
  UniqueFd root = proc::openProcessRoot(process.pid());
  UniqueFd tmp = root ? proc::openInRoot(root.get(), "tmp", O_RDONLY | O_DIRECTORY | O_NOFOLLOW) : UniqueFd();
  if (!tmp) return;  // staging, if it is attempted, says why
  const int tmpDir = tmp.get();
  UniqueFd listing(::openat(tmpDir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  DIR* dir = listing ? ::fdopendir(listing.get()) : nullptr;
  if (!dir) return;
  listing.release();  // the DIR owns it now
  const std::string fileName(kStagedAgentFileName);
  while (dirent* entry = ::readdir(dir)) {
    std::string_view name = entry->d_name;
    const bool unrenamed = name.starts_with(".") && isStagingName(name.substr(1));
    if (!isStagingName(name) && !unrenamed) continue;
    UniqueFd orphan(::openat(tmpDir, entry->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!orphan) continue;
    // A young unrenamed directory may be another attach's, between its mkdir and its lock: it is not even
    // locked for a moment here, or that attach would find it taken.
    struct stat st {};
    if (unrenamed && (::fstat(orphan.get(), &st) != 0 || time(nullptr) - st.st_ctim.tv_sec < kUnrenamedOrphanSeconds)) {
      continue;
    }
    if (::flock(orphan.get(), LOCK_EX | LOCK_NB) != 0) continue;
    ::unlinkat(orphan.get(), fileName.c_str(), 0);
    ::unlinkat(tmpDir, entry->d_name, AT_REMOVEDIR);
  }
  ::closedir(dir);
}

}  // namespace

// The random part in hex: the only names the sweep touches (a "jfrbpf-notes" is not ours).
bool isStagingName(std::string_view name) {
  if (!name.starts_with(kStagingDirectoryPrefix)) return false;
  name.remove_prefix(kStagingDirectoryPrefix.size());
  return name.size() == 2 * kRandomBytes && name.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

StagedAgent StagedAgent::prepare(const TargetProcess& process, const std::string& hostLibraryPath) {
  StagedAgent staged;
  removeOrphanedCopies(process);
  for (const proc::Mapping& file : process.mappedFiles()) {
    if (proc::baseName(file.path).starts_with(kAgentFileNamePrefix)) {
      staged.pathInTarget_ = file.path;
      staged.reused_ = true;
      return staged;
    }
  }

  UniqueFd source = openSourceLibrary(hostLibraryPath);
  staged.tmpDir_ = openTargetTmp(process);
  const int tmp = staged.tmpDir_.get();
  for (int attempt = 0; attempt < kNameAttempts && !staged.stagingDir_; ++attempt) {
    const std::string name = randomDirectoryName();
    const std::string first = "." + name;
    if (::mkdirat(tmp, first.c_str(), 0700) != 0) {
      int err = errno;
      if (err == EEXIST) continue;
      throw AttachError(AttachFailure::UnsafeTarget,
                        "cannot create a directory in /tmp of " + process.describe() + ": " + std::strerror(err));
    }
    UniqueFd dir(::openat(tmp, first.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!dir) {
      int err = errno;
      ::unlinkat(tmp, first.c_str(), AT_REMOVEDIR);
      throw AttachError(AttachFailure::UnsafeTarget, "the directory jfrbpf created in /tmp of " + process.describe() +
                                                         " was replaced before it could be opened (" +
                                                         std::strerror(err) + "); refusing to continue");
    }
    // The lock says the directory is ours while we live; only then does it get a name sweeps look at.
    if (::flock(dir.get(), LOCK_EX | LOCK_NB) != 0 ||
        ::renameat2(tmp, first.c_str(), tmp, name.c_str(), RENAME_NOREPLACE) != 0) {
      int err = errno;
      ::unlinkat(tmp, first.c_str(), AT_REMOVEDIR);
      if (err == EEXIST) continue;
      throw AttachError(AttachFailure::UnsafeTarget,
                        "cannot set up a directory in /tmp of " + process.describe() + ": " + std::strerror(err));
    }
    staged.dirName_ = name;
    staged.stagingDir_ = std::move(dir);  // from here on the destructor removes whatever exists
  }
  if (!staged.stagingDir_) {
    throw AttachError(AttachFailure::UnsafeTarget,
                      "cannot find a free directory name in /tmp of " + process.describe());
  }
  if (::fchmod(staged.stagingDir_.get(), kDirectoryMode) != 0) throw systemError("chmod of the agent directory");
  const std::string fileName(kStagedAgentFileName);
  UniqueFd copy(
      ::openat(staged.stagingDir_.get(), fileName.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0700));
  if (!copy) throw systemError("cannot create the agent copy in /tmp of " + process.describe());
  const std::string what = "the agent copy for " + process.describe();
  copyFile(source.get(), copy.get(), what);
  if (::fchmod(copy.get(), kLibraryMode) != 0 || ::fsync(copy.get()) != 0) throw systemError("cannot finish " + what);
  staged.pathInTarget_ = "/tmp/" + staged.dirName_ + "/" + fileName;
  return staged;
}

StagedAgent& StagedAgent::operator=(StagedAgent&& other) noexcept {
  if (this != &other) {
    remove();
    pathInTarget_ = std::move(other.pathInTarget_);
    tmpDir_ = std::move(other.tmpDir_);
    stagingDir_ = std::move(other.stagingDir_);
    dirName_ = std::move(other.dirName_);
    reused_ = other.reused_;
  }
  return *this;
}

void StagedAgent::remove() noexcept {
  if (!stagingDir_) return;
  ::unlinkat(stagingDir_.get(), std::string(kStagedAgentFileName).c_str(), 0);
  stagingDir_.reset();
  ::unlinkat(tmpDir_.get(), dirName_.c_str(), AT_REMOVEDIR);
  tmpDir_.reset();
}

}  // namespace jfrbpf::attach
