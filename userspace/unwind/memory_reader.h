#pragma once
// How the reference unwinder reads the target's stack: an interface, so tests can walk a saved stack image
// and the live path can use process_vm_readv.
#include <sys/types.h>

#include <cstdint>
#include <span>

namespace jfrbpf::unwind {

class MemoryReader {
 public:
  virtual ~MemoryReader() = default;
  // Reads exactly out.size() bytes at address; false when any of them is unreadable.
  virtual bool read(uint64_t address, std::span<uint8_t> out) const = 0;

  bool readU64(uint64_t address, uint64_t& value) const {
    return read(address, {reinterpret_cast<uint8_t*>(&value), sizeof(value)});
  }
};

// Another process's memory through process_vm_readv (needs the right to ptrace it).
class ProcessMemory final : public MemoryReader {
 public:
  explicit ProcessMemory(pid_t pid) : pid_(pid) {}
  bool read(uint64_t address, std::span<uint8_t> out) const override;

 private:
  pid_t pid_;
};

}  // namespace jfrbpf::unwind
