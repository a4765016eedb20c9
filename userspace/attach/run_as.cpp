#include "userspace/attach/run_as.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <exception>
#include <thread>

#include "userspace/attach/attach_error.h"

namespace jfrbpf::attach {
namespace {

// The raw system calls change only the calling thread: glibc's wrappers would broadcast the change to every
// thread of the process, which is exactly what must not happen.
void switchThisThread(const Credentials& as) {
  if (::syscall(SYS_setgroups, 0, nullptr) != 0 || ::syscall(SYS_setresgid, -1, as.gid, -1) != 0 ||
      ::syscall(SYS_setresuid, -1, as.uid, -1) != 0) {
    int err = errno;
    throw AttachError(AttachFailure::PermissionDenied,
                      "cannot act as the JVM's user (uid " + std::to_string(as.uid) + ", gid " +
                          std::to_string(as.gid) + "): " + std::strerror(err) + "; run jfrbpf as root or as that user");
  }
}

}  // namespace

void runWithCredentials(const Credentials& as, const std::function<void()>& work) {
  if (::geteuid() == as.uid && ::getegid() == as.gid) {
    work();
    return;
  }
  std::exception_ptr failure;
  std::thread worker([&] {
    try {
      switchThisThread(as);
      work();
    } catch (...) {
      failure = std::current_exception();
    }
  });
  worker.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace jfrbpf::attach
