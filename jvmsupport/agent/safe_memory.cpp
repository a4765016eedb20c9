#include "jvmsupport/agent/safe_memory.h"

#include <pthread.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>

namespace jfrbpf::agent {

namespace {

// The pid to read: getpid() is a system call of its own, as costly as a small read. Reset in a forked child,
// whose reads must be of its own memory.
std::atomic<pid_t> g_pid{0};
std::atomic<bool> g_forkHandled{false};

void forgetPid() { g_pid.store(0, std::memory_order_relaxed); }

pid_t ownPid() {
  pid_t pid = g_pid.load(std::memory_order_relaxed);
  if (pid == 0) {
    if (!g_forkHandled.exchange(true, std::memory_order_relaxed)) pthread_atfork(nullptr, nullptr, forgetPid);
    pid = getpid();
    g_pid.store(pid, std::memory_order_relaxed);
  }
  return pid;
}

bool rawRead(uintptr_t address, void* out, size_t size) {
  if (address == 0 || size == 0) return false;
  iovec local{out, size};
  iovec remote{reinterpret_cast<void*>(address), size};
  ssize_t n = process_vm_readv(ownPid(), &local, 1, &remote, 1, 0);
  return n == static_cast<ssize_t>(size);
}

// 0 = not probed, 1 = works, 2 = unavailable.
std::atomic<int> g_probe{0};

// Per call; the kernel's limit (UIO_MAXIOV) is 1024.
constexpr size_t kBatch = 256;

}  // namespace

bool safeMemoryAvailable() {
  int state = g_probe.load(std::memory_order_relaxed);
  if (state == 0) {
    static const uint64_t probe = 0x6a66726270660a01ull;
    uint64_t copy = 0;
    state = rawRead(reinterpret_cast<uintptr_t>(&probe), &copy, sizeof copy) && copy == probe ? 1 : 2;
    g_probe.store(state, std::memory_order_relaxed);
  }
  return state == 1;
}

bool safeRead(uintptr_t address, void* out, size_t size) {
  return safeMemoryAvailable() && rawRead(address, out, size);
}

void safeReadEach(std::span<const uintptr_t> addresses, size_t size, uint8_t* out, bool* readable) {
  std::fill_n(readable, addresses.size(), false);
  if (size == 0 || !safeMemoryAvailable()) return;
  iovec local[kBatch];
  iovec remote[kBatch];
  size_t slots[kBatch];
  for (size_t next = 0; next < addresses.size();) {
    size_t count = 0;
    for (; next < addresses.size() && count < kBatch; ++next) {
      if (addresses[next] == 0) continue;
      local[count] = {out + next * size, size};
      remote[count] = {reinterpret_cast<void*>(addresses[next]), size};
      slots[count++] = next;
    }
    // The kernel copies element by element and stops at the first one it cannot read whole: those before it
    // were read; it is not; the rest are asked again.
    for (size_t done = 0; done < count;) {
      ssize_t n = process_vm_readv(ownPid(), local + done, count - done, remote + done, count - done, 0);
      size_t whole = n > 0 ? static_cast<size_t>(n) / size : 0;
      for (size_t i = 0; i < whole; ++i) readable[slots[done + i]] = true;
      done += whole + 1;  // past the one that failed, if any
    }
  }
}

bool safeReadInteger(uintptr_t address, size_t width, bool isSigned, int64_t& out) {
  uint8_t raw[8] = {};
  if (width != 1 && width != 2 && width != 4 && width != 8) return false;
  if (!safeRead(address, raw, width)) return false;
  return integerAt(raw, sizeof raw, 0, width, isSigned, out);
}

bool integerAt(const uint8_t* object, size_t size, uint64_t offset, size_t width, bool isSigned, int64_t& out) {
  if ((width != 1 && width != 2 && width != 4 && width != 8) || offset > size || size - offset < width) return false;
  uint64_t v = 0;
  std::memcpy(&v, object + offset, width);
  if (isSigned && width < 8 && (v >> (width * 8 - 1)) & 1) v |= ~uint64_t{0} << (width * 8);
  out = static_cast<int64_t>(v);
  return true;
}

}  // namespace jfrbpf::agent
