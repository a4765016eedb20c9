#pragma once
// Where the loader's memory is, cache by cache: what `jfrbpf dump --check` prints, so that an operator (and
// the soak, which logs it) sees what holds memory and what grows.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace jfrbpf::record {

struct MemoryAccount {
  size_t resident = 0;      // RSS now
  size_t residentMapped = 0;  // of it, pages of mapped files and BPF maps (code, the BPF rings): fixed
  size_t peakResident = 0;  // the high-water mark of the RSS (VmHWM)
  size_t limit = 0;         // --memory-limit
  uint64_t sheds = 0;       // times the caches were dropped to stay under the limit
  size_t symbols = 0;       // native symbol tables, their names, the processes' address-space views
  size_t unwindTables = 0;  // native unwind tables
  size_t javaModels = 0;    // the JVMs' models (methods, code, classes, threads)
  size_t jvms = 0;          // ... of this many JVMs
  size_t waiting = 0;       // records waiting for their agent's metadata
  size_t files = 0;         // the files being written: their chunks' buffers and constants
  size_t stackCaches = 0;   // the resolvers' cached frames, and which virtual threads were named
  size_t unwrittenChunkBytes = 0;  // of the chunks' buffers, reserved and never written: in use, not resident
  size_t heapInUse = 0;     // what the allocator has handed out: the above and the rest (writers, stacks, names)
  size_t heapFree = 0;      // freed and kept by the allocator, resident or not
};

// The sum of the /proc/self/status lines `fields` ("VmHWM", "RssFile": kB) in bytes, 0 if unreadable.
size_t ownStatusBytes(std::initializer_list<std::string_view> fields);

// The allocator's figures (mallinfo2) and the mapped part of the RSS (/proc/self/status) into `account`.
void measureHeapAndMappings(MemoryAccount& account);

// The account as `dump --check` prints it: a few lines.
std::vector<std::string> describe(const MemoryAccount& account);

}  // namespace jfrbpf::record
