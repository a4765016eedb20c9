#pragma once
// Reads of JVM-internal memory that cannot crash the JVM: a wrong VMStructs offset or a structure freed
// under our feet yields "unreadable", never SIGSEGV. process_vm_readv on our own pid faults into an error
// code instead of a signal.
#include <cstddef>
#include <cstdint>

namespace jfrbpf::agent {

// True once a probe of our own memory worked (seccomp may forbid process_vm_readv in a container).
bool safeMemoryAvailable();

bool safeRead(uintptr_t address, void* out, size_t size);

template <typename T>
bool safeRead(uintptr_t address, T& out) {
  return safeRead(address, &out, sizeof out);
}

// Reads an integer field of `width` bytes (1, 2, 4 or 8), sign-extending when `isSigned`.
bool safeReadInteger(uintptr_t address, size_t width, bool isSigned, int64_t& out);

}  // namespace jfrbpf::agent
