#pragma once
// Kernel pcs -> function names from /proc/kallsyms: text symbols only, sorted once, binary-searched.
// Symbols of vmlinux report library "kernel"; symbols of a module report the module's name ("xfs", "bpf").
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <future>
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

// The host's kernel symbols as a recording names its kernel frames: read on a thread of their own, at a low
// priority, from when the recording starts (they name frames and are not needed to take samples: the first
// samples come sooner without their 0.1 s of CPU), and waited for by the first frame to be named. Symbols that
// cannot be read (kptr_restrict) leave kernel frames unnamed; failure() says why.
class KernelSymbols {
 public:
  KernelSymbols();  // starts reading KernelSymbolizer::shared()
  // Starts `load`, which may throw jfrbpf::Error.
  explicit KernelSymbols(std::function<std::shared_ptr<const KernelSymbolizer>()> load);
  explicit KernelSymbols(std::shared_ptr<const KernelSymbolizer> ready);

  NativeFrame symbolize(uint64_t pc) const;  // waits for them
  // Why they could not be read, once that is known; empty while they load and once they are loaded.
  std::string failure() const;

 private:
  struct Loaded {
    std::shared_ptr<const KernelSymbolizer> symbols;
    std::string failure;
  };
  // The reading thread (0 once done): a frame waiting for it raises its priority, lest samples pile up behind
  // a thread that a busy host hardly runs.
  std::shared_ptr<std::atomic<pid_t>> loader_ = std::make_shared<std::atomic<pid_t>>(0);
  std::shared_future<Loaded> loaded_;
};

}  // namespace jfrbpf::symbolize
