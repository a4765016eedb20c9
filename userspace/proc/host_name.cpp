#include "userspace/proc/host_name.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <thread>

#include "base/unique_fd.h"

namespace jfrbpf::proc {
namespace {

std::string ownHostName() {
  utsname names{};
  return ::uname(&names) == 0 ? names.nodename : "";
}

std::string readHostName() {
  UniqueFd init(::open("/proc/1/ns/uts", O_RDONLY | O_CLOEXEC));
  struct stat initNamespace {}, ownNamespace {};
  if (!init || ::fstat(init.get(), &initNamespace) != 0 || ::stat("/proc/self/ns/uts", &ownNamespace) != 0 ||
      initNamespace.st_ino == ownNamespace.st_ino) {
    return ownHostName();
  }
  // Namespaces are per thread: one that joins PID 1's and ends leaves the others where they were.
  std::string name;
  std::thread([&] {
    if (::setns(init.get(), CLONE_NEWUTS) == 0) name = ownHostName();
  }).join();
  return name.empty() ? ownHostName() : name;
}

}  // namespace

const std::string& hostName() {
  static const std::string name = readHostName();
  return name;
}

}  // namespace jfrbpf::proc
