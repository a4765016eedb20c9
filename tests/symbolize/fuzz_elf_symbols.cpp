// Fuzzes the ELF symbol parser on both of its input paths: an in-memory image (how the vDSO is read) and a
// file descriptor read with pread (how every mapped file is read, here a file the input may make sparse), then
// uses what it parsed the way the symbolizer does: lookups, file offset translation, demangling of the
// (hostile) names. The file is read with the limits of a recording at the default --memory-limit.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>

#include "base/error.h"
#include "base/unique_fd.h"
#include "tests/fuzz/sparse_file.h"
#include "userspace/record/config.h"
#include "userspace/record/session/memory_budget.h"
#include "userspace/symbolize/demangle.h"
#include "userspace/symbolize/elf_file.h"
#include "userspace/symbolize/elf_symbols.h"

using namespace jfrbpf::symbolize;

namespace {

void exercise(const ElfSymbols& symbols) {
  static Demangler demangler;
  size_t count = std::min<size_t>(symbols.symbols.size(), 64);
  for (size_t i = 0; i < count; ++i) {
    auto index = static_cast<uint32_t>(i);
    demangler.demangle(symbols.symbols.cName(index));
    symbols.symbols.lookup(symbols.symbols.address(index) + 1);
  }
  for (uint64_t offset = 0; offset < 1 << 16; offset += 4096) symbols.fileOffsetToAddress(offset);
  hexBuildId(symbols.buildId);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    exercise(*parseElfSymbols({data, size}));
  } catch (const jfrbpf::Error&) {
  }

  static jfrbpf::fuzz::SparseFile scratch;
  const int fd = scratch.fill(data, size);
  try {
    ElfFile file = ElfFile::fromFd(jfrbpf::UniqueFd(fcntl(fd, F_DUPFD_CLOEXEC, 0)));
    exercise(*buildElfSymbols(file, nullptr, {}, jfrbpf::record::symbolCacheShareOf(jfrbpf::record::kDefaultMemoryLimit)));
  } catch (const jfrbpf::Error&) {
  }
  return 0;
}
