// Fuzz target for the unwind table builder (bytes -> tables), with the limits the recorder uses. The first
// byte picks what the rest is:
//   0: a whole ELF file, read from a file the input may make sparse (tests/fuzz/sparse_file.h);
//   1: a raw .eh_frame at vaddr 0x1000;  2: a raw .debug_frame;  3: an .eh_frame_hdr.
// Beyond "no crash", every table must keep the invariants the BPF walker relies on.
#include <cstddef>
#include <cstdint>
#include <span>

#include "base/error.h"
#include "tests/fuzz/sparse_file.h"
#include "userspace/unwind/table_compiler.h"

using namespace jfrbpf::unwind;

namespace {

void checkInvariants(const UnwindTable& table, const CompileLimits& limits) {
  if (table.rows.size() > limits.maxRows) __builtin_trap();
  for (size_t i = 1; i < table.rows.size(); ++i) {
    if (table.rows[i].pc <= table.rows[i - 1].pc) __builtin_trap();  // strictly sorted, no duplicates
  }
  if (!table.rows.empty()) {
    if (table.rows.back().kind != JFRBPF_UNWIND_NONE) __builtin_trap();  // the last row closes the table
    for (const UnwindRow& row : table.rows) {
      if (row.kind >= JFRBPF_UNWIND_KIND_COUNT) __builtin_trap();
      const UnwindRow* found = table.find(table.pcBase + row.pc);
      if (found == nullptr || found->pc != row.pc) __builtin_trap();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  std::span<const uint8_t> bytes(data + 1, size - 1);
  const CompileLimits limits;
  try {
    switch (data[0] % 4) {
      case 0: {
        static jfrbpf::fuzz::SparseFile file;
        ByteSource source = ByteSource::fromFd(file.fill(bytes.data(), bytes.size()));
        ElfImage image(source);
        checkInvariants(compileUnwindTable(image, limits), limits);
        image.buildId();
        break;
      }
      case 1:
        checkInvariants(compileCfiSection({CfiFormat::kEhFrame, bytes, 0x1000, 0x800, nullptr}, limits), limits);
        break;
      case 2:
        checkInvariants(compileCfiSection({CfiFormat::kDebugFrame, bytes, 0, std::nullopt, nullptr}, limits), limits);
        break;
      case 3:
        parseEhFrameHeader(bytes, 0x1000);
        break;
    }
  } catch (const jfrbpf::Error&) {
    // Rejected input: the expected outcome for most mutations.
  }
  return 0;
}
