#include "formats/jfr/reader/complete_chunks.h"

#include <memory>

#include "formats/jfr/reader/byte_cursor.h"
#include "formats/jfr/reader/chunk.h"
#include "formats/jfr/reader/chunk_header.h"

namespace jfrbpf::jfr::reader {

CompleteChunks completeChunks(std::span<const uint8_t> file) {
  CompleteChunks complete;
  std::shared_ptr<const ChunkTypes> types;
  while (complete.bytes + ChunkHeader::kSize <= file.size()) {
    try {
      ChunkHeader header = parseChunkHeader(file, complete.bytes);
      Chunk chunk(header, file, std::move(types));  // its metadata and constant pools decode
      types = chunk.types();
      complete.bytes += static_cast<size_t>(header.size);
      ++complete.count;
    } catch (const FormatError&) {
      break;  // cut off, or never written whole
    }
  }
  return complete;
}

}  // namespace jfrbpf::jfr::reader
