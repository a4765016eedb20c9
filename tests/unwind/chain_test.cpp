// End-to-end: real processes built without frame pointers, stopped in a known state; their registers
// (ptrace) and memory (process_vm_readv) go through the reference unwinder, and every function of the
// 20-level chain must come out in order, down to main or the thread's start, ending cleanly.
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/unwind/test_symbols.h"
#include "userspace/unwind/reference_unwinder.h"

namespace jfrbpf::unwind {
namespace {

const std::vector<std::string> kChain = {
    "chain_leaf",   "lib_level_20", "lib_level_19", "lib_level_18", "lib_level_17", "dbg_level_16",
    "dbg_level_15", "dbg_level_14", "lib_level_13", "lib_level_12", "lib_level_11", "exe_level_10",
    "exe_level_09", "exe_level_08", "exe_level_07", "exe_level_06", "exe_level_05", "exe_level_04",
    "exe_level_03", "exe_level_02", "exe_level_01"};

// The child process, killed and reaped however the test ends.
class Child {
 public:
  explicit Child(pid_t pid) : pid_(pid) {}
  ~Child() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, __WALL);
    }
  }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_;
};

struct StoppedStack {
  std::vector<std::string> names;
  Walk walk;
  std::string text;  // for failure messages
};

StoppedStack unwindStopped(pid_t pid, pid_t tid) {
  user_regs_struct regs{};
  EXPECT_EQ(::ptrace(PTRACE_GETREGS, tid, nullptr, &regs), 0) << strerror(errno);
  TableCache cache;
  std::vector<std::string> problems;
  AddressSpace space = AddressSpace::forProcess(pid, cache, &problems);
  for (const std::string& problem : problems) ADD_FAILURE() << problem;
  StoppedStack stack;
  stack.walk = unwindStack({regs.rip, regs.rsp, regs.rbp, regs.rax}, space, ProcessMemory(pid));
  test::ProcessSymbolizer symbols(space);
  std::ostringstream text;
  for (size_t i = 0; i < stack.walk.frames.size(); ++i) {
    const Frame& frame = stack.walk.frames[i];
    // Return addresses are named by the call instruction before them.
    bool exact = i == 0 || stack.walk.frames[i - 1].signalFrame;
    std::string name = symbols.name(exact ? frame.pc : frame.pc - 1);
    stack.names.push_back(name);
    const MappedTable* mapping = space.find(frame.pc);
    text << "  #" << i << " " << std::hex << frame.pc << " sp=" << frame.sp << std::dec << " "
         << (name.empty() ? "?" : name) << (frame.signalFrame ? " [signal frame]" : "") << " ("
         << (mapping ? mapping->path : "unmapped") << ")\n";
  }
  text << "  end: " << walkEndName(stack.walk.end) << "\n";
  stack.text = text.str();
  std::printf("%s", stack.text.c_str());
  return stack;
}

// Index of name in names at or after from, or -1.
long indexOf(const std::vector<std::string>& names, const std::string& name, size_t from = 0) {
  for (size_t i = from; i < names.size(); ++i) {
    if (names[i] == name) return static_cast<long>(i);
  }
  return -1;
}

void expectChainFrom(const StoppedStack& stack, long leaf, const std::vector<std::string>& bottom) {
  ASSERT_GE(leaf, 0) << "chain_leaf not found in the walk:\n" << stack.text;
  std::vector<std::string> expected = kChain;
  expected.insert(expected.end(), bottom.begin(), bottom.end());
  ASSERT_GE(stack.names.size(), leaf + expected.size()) << stack.text;
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(stack.names[leaf + i], expected[i]) << "frame " << leaf + i << "\n" << stack.text;
  }
}

bool ptraceAllowed() { return ::geteuid() == 0; }

// Starts the program under ptrace and lets it run until it stops itself with SIGSTOP; other signals
// (SIGUSR1 in signal mode) are delivered on the way.
pid_t runUntilSigstop(const char* mode) {
  pid_t pid = ::fork();
  if (pid == 0) {
    ::ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
    ::execl(UNWIND_CHAIN_PROGRAM, UNWIND_CHAIN_PROGRAM, mode, static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status)) return -1;  // the exec trap
  int deliver = 0;
  for (;;) {
    if (::ptrace(PTRACE_CONT, pid, nullptr, deliver) != 0) return -1;
    if (::waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status)) return -1;
    if (WSTOPSIG(status) == SIGSTOP) return pid;
    deliver = WSTOPSIG(status) == SIGTRAP ? 0 : WSTOPSIG(status);
  }
}

TEST(UnwindChain, LeafStoppedBySigstopUnwindsToMain) {
  if (!ptraceAllowed()) GTEST_SKIP() << "needs root for ptrace and /proc/PID/map_files";
  Child child(runUntilSigstop("stop"));
  ASSERT_GT(child.pid(), 0) << "the chain program did not reach its SIGSTOP";
  StoppedStack stack = unwindStopped(child.pid(), child.pid());
  expectChainFrom(stack, indexOf(stack.names, "chain_leaf"), {"main"});
  EXPECT_EQ(stack.walk.end, WalkEnd::kEndOfStack) << stack.text;
  EXPECT_EQ(stack.names.back(), "_start") << stack.text;
}

TEST(UnwindChain, SignalHandlerUnwindsThroughTheSignalFrame) {
  if (!ptraceAllowed()) GTEST_SKIP() << "needs root for ptrace and /proc/PID/map_files";
  Child child(runUntilSigstop("signal"));
  ASSERT_GT(child.pid(), 0) << "the chain program did not reach its SIGSTOP";
  StoppedStack stack = unwindStopped(child.pid(), child.pid());
  long handler = indexOf(stack.names, "chain_signal_handler");
  ASSERT_GE(handler, 0) << stack.text;
  ASSERT_GT(stack.walk.frames.size(), static_cast<size_t>(handler + 1)) << stack.text;
  EXPECT_TRUE(stack.walk.frames[handler + 1].signalFrame) << stack.text;
  expectChainFrom(stack, indexOf(stack.names, "chain_leaf", handler + 2), {"main"});
  EXPECT_EQ(stack.walk.end, WalkEnd::kEndOfStack) << stack.text;
}

TEST(UnwindChain, ThreadBlockedInReadUnwindsToItsStart) {
  if (!ptraceAllowed()) GTEST_SKIP() << "needs root for ptrace and /proc/PID/map_files";
  int out[2];
  ASSERT_EQ(::pipe(out), 0);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out[1], STDOUT_FILENO);
    ::execl(UNWIND_CHAIN_PROGRAM, UNWIND_CHAIN_PROGRAM, "read", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(out[1]);
  Child child(pid);
  char line[32] = {};
  ssize_t got = ::read(out[0], line, sizeof(line) - 1);
  ::close(out[0]);
  ASSERT_GT(got, 0) << "the chain program did not print its thread id";
  pid_t tid = std::stoi(line);

  // Wait until the thread sits in read(2): /proc/PID/task/TID/syscall starts with its number, 0.
  std::string syscallPath = "/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/syscall";
  bool inRead = false;
  for (int attempt = 0; attempt < 500 && !inRead; ++attempt) {
    std::ifstream in(syscallPath);
    std::string number;
    in >> number;
    inRead = number == "0";
    if (!inRead) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(inRead) << "thread " << tid << " never blocked in read";

  ASSERT_EQ(::ptrace(PTRACE_SEIZE, tid, nullptr, nullptr), 0) << strerror(errno);
  ASSERT_EQ(::ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr), 0) << strerror(errno);
  int status = 0;
  ASSERT_EQ(::waitpid(tid, &status, __WALL), tid);
  ASSERT_TRUE(WIFSTOPPED(status));
  StoppedStack stack = unwindStopped(pid, tid);
  ::ptrace(PTRACE_DETACH, tid, nullptr, nullptr);
  expectChainFrom(stack, indexOf(stack.names, "chain_leaf"), {"thread_entry"});
  // Below thread_entry: glibc's start_thread and clone3, whose CFI marks the end of the stack.
  EXPECT_EQ(stack.walk.end, WalkEnd::kEndOfStack) << stack.text;
  EXPECT_LE(stack.walk.frames.size(), static_cast<size_t>(indexOf(stack.names, "thread_entry") + 3)) << stack.text;
}

}  // namespace
}  // namespace jfrbpf::unwind
