#include "userspace/unwind/memory_reader.h"

#include <sys/uio.h>

namespace jfrbpf::unwind {

bool ProcessMemory::read(uint64_t address, std::span<uint8_t> out) const {
  if (out.empty()) return true;
  iovec local{out.data(), out.size()};
  iovec remote{reinterpret_cast<void*>(address), out.size()};
  ssize_t got = ::process_vm_readv(pid_, &local, 1, &remote, 1, 0);
  return got == static_cast<ssize_t>(out.size());
}

}  // namespace jfrbpf::unwind
