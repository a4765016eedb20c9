#include "userspace/record/memory_account.h"

#include <malloc.h>

#include "base/number_text.h"

namespace jfrbpf::record {

void measureHeap(MemoryAccount& account) {
  const struct mallinfo2 info = mallinfo2();
  account.heapInUse = info.uordblks + info.hblkhd;  // chunks in use in the arenas, and those mmapped alone
  account.heapFree = info.fordblks;
}

std::vector<std::string> describe(const MemoryAccount& a) {
  const size_t itemized = a.symbols + a.unwindTables + a.javaModels + a.waiting;
  const size_t heap = a.heapInUse + a.heapFree;
  std::vector<std::string> lines;
  lines.push_back("memory   " + mebibytes(a.resident) + " resident, peak " + mebibytes(a.peakResident) +
                  " of --memory-limit " + mebibytes(a.limit) + ", caches dropped " + std::to_string(a.sheds) +
                  " times");
  lines.push_back("  native symbols " + mebibytes(a.symbols) + ", unwind tables " + mebibytes(a.unwindTables) +
                  ", Java models " + mebibytes(a.javaModels) + " (" + std::to_string(a.jvms) +
                  (a.jvms == 1 ? " JVM" : " JVMs") + "), records waiting for metadata " + mebibytes(a.waiting));
  lines.push_back("  heap " + mebibytes(a.heapInUse) + " in use (" +
                  mebibytes(a.heapInUse > itemized ? a.heapInUse - itemized : 0) +
                  " of it files being written, stack caches, thread names), " + mebibytes(a.heapFree) +
                  " free in the allocator; " + mebibytes(a.resident > heap ? a.resident - heap : 0) +
                  " outside the heap (code, thread stacks, BPF rings)");
  return lines;
}

}  // namespace jfrbpf::record
