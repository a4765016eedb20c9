#include "formats/jfr/reader/recording.h"

#include <variant>

#include "formats/jfr/reader/byte_cursor.h"
#include "formats/jfr/reader/mapped_file.h"

namespace jfrbpf::jfr::reader {

struct Recording::Storage {
  std::variant<MappedFile, std::vector<uint8_t>> bytes;

  std::span<const uint8_t> span() const {
    if (const auto* mapped = std::get_if<MappedFile>(&bytes)) return mapped->bytes();
    return std::get<std::vector<uint8_t>>(bytes);
  }
};

Recording::Recording(std::string name, std::unique_ptr<Storage> storage)
    : name_(std::move(name)), storage_(std::move(storage)) {
  auto file = storage_->span();
  if (file.empty()) throw Error(name_ + ": the file is empty, not a JFR recording");
  try {
    for (uint64_t offset = 0; offset < file.size();) {
      chunks_.push_back(parseChunkHeader(file, offset));
      offset += static_cast<uint64_t>(chunks_.back().size);
    }
  } catch (const FormatError& e) {
    rethrowWithName(e);
  }
}

Recording::Recording(Recording&&) noexcept = default;
Recording& Recording::operator=(Recording&&) noexcept = default;
Recording::~Recording() = default;

Recording Recording::open(const std::string& path) {
  auto storage = std::make_unique<Storage>(Storage{MappedFile(path)});
  return Recording(path, std::move(storage));
}

Recording Recording::fromBytes(std::span<const uint8_t> bytes) {
  auto storage = std::make_unique<Storage>(Storage{std::vector<uint8_t>(bytes.begin(), bytes.end())});
  return Recording("<memory>", std::move(storage));
}

std::span<const uint8_t> Recording::bytes() const { return storage_->span(); }

void Recording::rethrowWithName(const std::exception& e) const {
  throw Error("cannot read JFR recording " + name_ + ": " + e.what() + " (the file is corrupt or truncated)");
}

void Recording::forEachChunk(const std::function<void(const Chunk&)>& callback) const {
  std::shared_ptr<const ChunkTypes> types;  // handed from chunk to chunk; the pools are not
  for (const ChunkHeader& header : chunks_) {
    std::unique_ptr<Chunk> chunk;
    try {
      chunk = std::make_unique<Chunk>(header, storage_->span(), std::move(types));
    } catch (const FormatError& e) {
      rethrowWithName(e);
    }
    callback(*chunk);
    types = chunk->types();
  }
}

void Recording::forEachEvent(const EventCallback& callback, const TypeFilter& filter) const {
  forEachChunk([&](const Chunk& chunk) {
    try {
      chunk.forEachEvent(callback, filter);
    } catch (const FormatError& e) {
      rethrowWithName(e);
    }
  });
}

}  // namespace jfrbpf::jfr::reader
