#include "userspace/record/memory_account.h"

#include <malloc.h>

#include <cstdio>
#include <cstdlib>

#include "base/number_text.h"

namespace jfrbpf::record {

size_t ownStatusBytes(std::initializer_list<std::string_view> fields) {
  FILE* status = std::fopen("/proc/self/status", "re");
  if (!status) return 0;
  char line[256];
  size_t bytes = 0;
  while (std::fgets(line, sizeof line, status)) {
    const std::string_view text(line);
    for (std::string_view field : fields) {
      if (text.size() > field.size() && text.starts_with(field) && text[field.size()] == ':') {
        bytes += static_cast<size_t>(std::strtoul(line + field.size() + 1, nullptr, 10)) << 10;
      }
    }
  }
  std::fclose(status);
  return bytes;
}

void measureHeapAndMappings(MemoryAccount& account) {
  const struct mallinfo2 info = mallinfo2();
  account.heapInUse = info.uordblks + info.hblkhd;  // chunks in use in the arenas, and those mmapped alone
  account.heapFree = info.fordblks;
  account.residentMapped = ownStatusBytes({"RssFile", "RssShmem"});
}

std::vector<std::string> describe(const MemoryAccount& a) {
  const size_t itemized =
      a.symbols + a.unwindTables + a.javaModels + a.waiting + a.files + a.stackCaches + a.unwrittenChunkBytes;
  std::vector<std::string> lines;
  lines.push_back("memory   " + mebibytes(a.resident) + " resident, peak " + mebibytes(a.peakResident) +
                  " of --memory-limit " + mebibytes(a.limit) + ", caches dropped " + std::to_string(a.sheds) +
                  " times");
  lines.push_back("  native symbols " + mebibytes(a.symbols) + ", unwind tables " + mebibytes(a.unwindTables) +
                  ", Java models " + mebibytes(a.javaModels) + " (" + std::to_string(a.jvms) +
                  (a.jvms == 1 ? " JVM" : " JVMs") + "), records waiting for metadata " + mebibytes(a.waiting));
  lines.push_back("  files being written " + mebibytes(a.files) + ", stack caches " + mebibytes(a.stackCaches) +
                  ", other heap " + mebibytes(a.heapInUse > itemized ? a.heapInUse - itemized : 0));
  // Allocated counts what was handed out, resident or not: a chunk's buffer is reserved whole up front.
  lines.push_back("  heap " + mebibytes(a.heapInUse) + " allocated (" + mebibytes(a.unwrittenChunkBytes) +
                  " of it chunk buffers never written), " + mebibytes(a.heapFree) + " free in the allocator; " +
                  mebibytes(a.residentMapped) + " of the resident memory is mapped code and BPF rings");
  return lines;
}

}  // namespace jfrbpf::record
