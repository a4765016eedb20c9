#pragma once
// Kernel pcs -> function names from /proc/kallsyms: text symbols only, sorted once, binary-searched.
// Symbols of vmlinux report library "kernel"; symbols of a module report the module's name ("xfs", "bpf").
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "userspace/symbolize/native_frame.h"

namespace jfrbpf::symbolize {

class KernelSymbolizer {
 public:
  // Parses kallsyms text. Throws jfrbpf::Error when the kernel hides addresses (kptr_restrict) or when
  // the text holds no usable text symbol.
  static std::unique_ptr<KernelSymbolizer> parse(std::string_view kallsymsText);
  // Reads and parses a kallsyms file (normally /proc/kallsyms). Throws jfrbpf::Error.
  static std::unique_ptr<KernelSymbolizer> load(const std::string& path = "/proc/kallsyms");
  // The host's /proc/kallsyms, loaded on first use and shared by every caller. Throws jfrbpf::Error
  // (and retries on the next call) when it cannot be loaded.
  static std::shared_ptr<const KernelSymbolizer> shared();

  KernelSymbolizer(const KernelSymbolizer&) = delete;
  KernelSymbolizer& operator=(const KernelSymbolizer&) = delete;

  // kSymbol with library "kernel" or the module name; kUnmapped (library "kernel", "[unknown]") otherwise.
  NativeFrame symbolize(uint64_t pc) const;
  size_t symbolCount() const { return entries_.size(); }

 private:
  struct Entry {
    uint64_t address;
    uint32_t nameOffset;
    uint16_t nameLength;
    uint16_t module;  // index into modules_; 0 = vmlinux
    bool endMarker;   // _etext-like symbols: nothing after them belongs to the previous function
    bool local;       // 't'/'w': loses to a global alias at the same address
  };
  struct ModuleName {
    uint32_t offset;
    uint16_t length;
  };

  KernelSymbolizer() = default;
  std::string_view text(uint32_t offset, uint16_t length) const { return {names_.data() + offset, length}; }

  std::string names_;  // every symbol and module name, back to back
  std::vector<ModuleName> modules_;
  std::vector<Entry> entries_;
};

}  // namespace jfrbpf::symbolize
