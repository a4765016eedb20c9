#pragma once
// Reads of JVM-internal memory that cannot crash the JVM: a wrong VMStructs offset or a structure freed
// under our feet yields "unreadable", never SIGSEGV. process_vm_readv on our own pid faults into an error
// code instead of a signal.
#include <cstddef>
#include <cstdint>
#include <span>

namespace jfrbpf::agent {

// True once a probe of our own memory worked (seccomp may forbid process_vm_readv in a container).
bool safeMemoryAvailable();

bool safeRead(uintptr_t address, void* out, size_t size);

template <typename T>
bool safeRead(uintptr_t address, T& out) {
  return safeRead(address, &out, sizeof out);
}

// Reads `size` bytes at each of `addresses` into the consecutive `size`-byte slots of `out`, batched into as
// few system calls as it takes (a replay reads tens of thousands of fields); `readable[i]` says whether slot i
// was read. Address 0 is unreadable.
void safeReadEach(std::span<const uintptr_t> addresses, size_t size, uint8_t* out, bool* readable);

// Reads an integer field of `width` bytes (1, 2, 4 or 8), sign-extending when `isSigned`.
bool safeReadInteger(uintptr_t address, size_t width, bool isSigned, int64_t& out);
// The same, from a copy of the object already read: its first `size` bytes at `object`.
bool integerAt(const uint8_t* object, size_t size, uint64_t offset, size_t width, bool isSigned, int64_t& out);

}  // namespace jfrbpf::agent
