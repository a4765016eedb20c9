#include "jvmsupport/agent/safe_memory.h"

#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

namespace jfrbpf::agent {

namespace {

bool rawRead(uintptr_t address, void* out, size_t size) {
  if (address == 0 || size == 0) return false;
  iovec local{out, size};
  iovec remote{reinterpret_cast<void*>(address), size};
  ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
  return n == static_cast<ssize_t>(size);
}

// 0 = not probed, 1 = works, 2 = unavailable.
std::atomic<int> g_probe{0};

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

bool safeReadInteger(uintptr_t address, size_t width, bool isSigned, int64_t& out) {
  uint8_t raw[8] = {};
  if (width != 1 && width != 2 && width != 4 && width != 8) return false;
  if (!safeRead(address, raw, width)) return false;
  uint64_t v = 0;
  std::memcpy(&v, raw, width);
  if (isSigned && width < 8 && (v >> (width * 8 - 1)) & 1) v |= ~uint64_t{0} << (width * 8);
  out = static_cast<int64_t>(v);
  return true;
}

}  // namespace jfrbpf::agent
