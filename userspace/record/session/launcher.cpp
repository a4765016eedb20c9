#include "userspace/record/session/launcher.h"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "base/error.h"

namespace jfrbpf::record {
namespace {

// Under sudo, the user who asked: the profiled program should not run as root because we do.
bool sudoCredentials(uid_t& uid, gid_t& gid, std::string& user) {
  const char* sudoUid = std::getenv("SUDO_UID");
  const char* sudoGid = std::getenv("SUDO_GID");
  if (!sudoUid || !sudoGid || getuid() != 0) return false;
  uid = static_cast<uid_t>(std::strtoul(sudoUid, nullptr, 10));
  gid = static_cast<gid_t>(std::strtoul(sudoGid, nullptr, 10));
  const char* name = std::getenv("SUDO_USER");
  user = name ? name : "";
  return uid != 0;
}

[[noreturn]] void childFail(int errorFd, int err) {
  ssize_t ignored = write(errorFd, &err, sizeof(err));
  (void)ignored;
  _exit(127);
}

}  // namespace

LaunchedProcess::LaunchedProcess(const std::vector<std::string>& command, const rlimit& openFiles) {
  if (command.empty()) throw Error("no command given after '--'", ErrorKind::Usage);
  program_ = command.front();
  int gatePipe[2];
  int errorPipe[2];
  if (pipe2(gatePipe, O_CLOEXEC) != 0 || pipe2(errorPipe, O_CLOEXEC) != 0) throw systemError("pipe");
  uid_t uid = 0;
  gid_t gid = 0;
  std::string user;
  bool dropToSudoUser = sudoCredentials(uid, gid, user);

  std::vector<char*> argv;
  for (const std::string& arg : command) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);

  pid_ = fork();
  if (pid_ < 0) throw systemError("fork");
  if (pid_ == 0) {
    close(gatePipe[1]);
    close(errorPipe[0]);
    // The recorder blocks SIGINT/SIGTERM to read them from a signalfd; the program gets the defaults back.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    setrlimit(RLIMIT_NOFILE, &openFiles);
    prctl(PR_SET_PDEATHSIG, SIGTERM);  // never outlive a recorder that died at start-up
    char go = 0;
    if (read(gatePipe[0], &go, 1) != 1) _exit(126);  // recorder gave up before releasing us
    if (dropToSudoUser) {
      if (initgroups(user.empty() ? "nobody" : user.c_str(), gid) != 0 || setgid(gid) != 0 || setuid(uid) != 0) {
        childFail(errorPipe[1], errno);
      }
    }
    prctl(PR_SET_PDEATHSIG, 0);
    execvp(argv[0], argv.data());
    childFail(errorPipe[1], errno);
  }
  close(gatePipe[0]);
  close(errorPipe[1]);
  gate_.reset(gatePipe[1]);
  execError_.reset(errorPipe[0]);
}

LaunchedProcess::~LaunchedProcess() {
  if (pid_ > 0 && !reaped_) {
    if (gate_) kill(pid_, SIGKILL);  // never released: it has not run anything of the user's
    int status = 0;
    waitpid(pid_, &status, 0);
  }
}

void LaunchedProcess::release() {
  char go = 1;
  if (write(gate_.get(), &go, 1) != 1) throw systemError("releasing the launched command");
  gate_.reset();
  int err = 0;
  ssize_t n = read(execError_.get(), &err, sizeof(err));
  execError_.reset();
  if (n == sizeof(err)) {
    throw Error("cannot run '" + program_ + "': " + std::strerror(err) +
                (err == ENOENT ? " (check the command name and PATH)" : ""),
                ErrorKind::Target);
  }
}

bool LaunchedProcess::reap(int& status) {
  if (reaped_) return true;
  pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r == pid_) reaped_ = true;
  return reaped_;
}

}  // namespace jfrbpf::record
