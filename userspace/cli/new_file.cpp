#include "userspace/cli/new_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "base/error.h"
#include "base/unique_fd.h"

namespace jfrbpf::cli {

void writeNewFile(const std::string& destination, std::span<const uint8_t> bytes, std::optional<FileOwner> owner) {
  const std::string temporary = destination + ".incomplete";
  UniqueFd out(::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, kPrivateFileMode));
  if (!out) throw systemError("cannot create " + temporary);
  if (owner && ::fchown(out.get(), owner->uid, owner->gid) != 0) {
    int err = errno;
    ::unlink(temporary.c_str());
    errno = err;
    throw systemError("cannot hand " + temporary + " to uid " + std::to_string(owner->uid));
  }
  for (size_t done = 0; done < bytes.size();) {
    ssize_t wrote = ::write(out.get(), bytes.data() + done, bytes.size() - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) {
      int err = errno;
      ::unlink(temporary.c_str());
      errno = err;
      throw systemError("cannot write " + temporary);
    }
    done += static_cast<size_t>(wrote);
  }
  // No existing file is replaced: link the finished copy into place, which fails if the name is taken.
  if (::fsync(out.get()) != 0 || ::link(temporary.c_str(), destination.c_str()) != 0) {
    int err = errno;
    ::unlink(temporary.c_str());
    if (err == EEXIST) throw Error(destination + " exists; choose another name with -o", ErrorKind::Usage);
    errno = err;
    throw systemError("cannot write " + destination);
  }
  ::unlink(temporary.c_str());
}

}  // namespace jfrbpf::cli
