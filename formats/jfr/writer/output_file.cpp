#include "formats/jfr/writer/output_file.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <vector>

#include "base/error.h"

namespace jfrbpf::jfr {
namespace {

constexpr int kCreateAttempts = 64;

std::string randomSuffix() {
  uint64_t bits = 0;
  if (getrandom(&bits, sizeof bits, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof bits)) {
    // No entropy yet (early boot): still unpredictable enough with O_EXCL guarding against collisions.
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    bits = (static_cast<uint64_t>(ts.tv_nsec) << 20) ^ static_cast<uint64_t>(ts.tv_sec) ^
           (static_cast<uint64_t>(getpid()) << 44) ^ reinterpret_cast<uintptr_t>(&ts);
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(bits));
  return hex;
}

std::string cannotWrite(const std::string& destination, const std::string& why, const std::string& fix) {
  return "cannot write recording '" + destination + "': " + why + " (" + fix + ")";
}

}  // namespace

OutputFile::OutputFile(std::string destination, std::optional<FileOwner> owner) : destination_(std::move(destination)) {
  if (destination_.empty()) throw Error("no output path given for the recording (pass a file name such as app.jfr)");
  size_t slash = destination_.rfind('/');
  std::string base = slash == std::string::npos ? destination_ : destination_.substr(slash + 1);
  directory_ = slash == std::string::npos ? "." : slash == 0 ? "/" : destination_.substr(0, slash);
  struct stat st {};
  if (base.empty() || base == "." || base == ".." || (::stat(destination_.c_str(), &st) == 0 && S_ISDIR(st.st_mode)))
    throw Error(cannotWrite(destination_, "it is a directory", "give a file name such as " + directory_ + "/app.jfr"));

  // "app.jfr" records into "app.<random>.part.jfr": the JDK's tools only open names ending in .jfr, and a
  // crash leaves this file as a valid recording of its complete chunks.
  std::string stem = base.size() > 4 && base.ends_with(".jfr") ? base.substr(0, base.size() - 4) : base;
  for (int attempt = 0; attempt < kCreateAttempts; ++attempt) {
    std::string candidate = directory_ + "/" + stem + "." + randomSuffix() + ".part.jfr";
    int fd = ::open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, kPrivateFileMode);
    if (fd >= 0) {
      fd_.reset(fd);
      temporaryPath_ = std::move(candidate);
      if (owner && ::fchown(fd, owner->uid, owner->gid) != 0) {
        int err = errno;
        discard();
        throw Error(cannotWrite(destination_, std::string(std::strerror(err)) + " handing it to uid " +
                                                  std::to_string(owner->uid),
                                "record into a local directory"));
      }
      return;
    }
    if (errno == EEXIST) continue;
    int err = errno;
    throw Error(cannotWrite(destination_, std::string(std::strerror(err)) + " creating a file in '" + directory_ + "'",
                            "make that directory exist and be writable, or choose another output path"));
  }
  throw Error(cannotWrite(destination_, "could not create a unique temporary file in '" + directory_ + "'",
                          "remove stale *.part.jfr files there"));
}

OutputFile::~OutputFile() {
  if (fd_ && size_ == 0) discard();
}

std::optional<std::string> OutputFile::appendChunk(std::span<const iovec> pieces) {
  if (!fd_) return "the recording file is already closed";
  std::vector<iovec> pending(pieces.begin(), pieces.end());
  size_t first = 0;
  uint64_t offset = size_;
  while (first < pending.size()) {
    ssize_t n =
        ::pwritev(fd_.get(), pending.data() + first,
                  static_cast<int>(std::min<size_t>(pending.size() - first, IOV_MAX)), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = n < 0 ? errno : EIO;
      // Cut back to the last complete chunk now, so a crash finds only complete chunks; commit() cuts again.
      bool cut = ::ftruncate(fd_.get(), static_cast<off_t>(size_)) == 0;
      return "writing '" + temporaryPath_ + "': " + std::strerror(err) +
             (cut ? "" : " (the partial chunk could not be cut off yet)");
    }
    offset += static_cast<uint64_t>(n);
    auto written = static_cast<size_t>(n);
    while (first < pending.size() && written >= pending[first].iov_len) written -= pending[first++].iov_len;
    if (first < pending.size()) {
      pending[first].iov_base = static_cast<char*>(pending[first].iov_base) + written;
      pending[first].iov_len -= written;
    }
  }
  size_ = offset;
  return std::nullopt;
}

void OutputFile::commit() {
  if (!fd_) throw Error("recording '" + destination_ + "' was already closed");
  std::string keptAt = "; the recording so far is kept in '" + temporaryPath_ + "'";
  // A failed write may have left bytes past the last complete chunk; a finished file never ends in them.
  if (::ftruncate(fd_.get(), static_cast<off_t>(size_)) != 0 || ::fsync(fd_.get()) != 0) {
    int err = errno;
    throw Error("cannot finish recording '" + destination_ + "': " + std::strerror(err) + keptAt);
  }
  fd_.reset();
  if (::rename(temporaryPath_.c_str(), destination_.c_str()) != 0) {
    int err = errno;
    throw Error("cannot move the recording into place at '" + destination_ + "': " + std::strerror(err) + keptAt);
  }
  // Make the rename itself durable; failure here loses nothing that is already in the file.
  UniqueFd directory(::open(directory_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (directory) ::fsync(directory.get());
}

void OutputFile::discard() noexcept {
  if (!fd_) return;
  fd_.reset();
  ::unlink(temporaryPath_.c_str());
}

}  // namespace jfrbpf::jfr
