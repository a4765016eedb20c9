#pragma once
// Reads JFR recordings: files written by jfrbpf or by the JDK (JDK 17 and 25 tested), any number of
// chunks. Generic: everything is decoded as the chunk's own metadata describes it.
//
//   auto recording = Recording::open("app.jfr");
//   recording.forEachEvent(
//       [](const RecordedEvent& e) {
//         auto thread = threadOf(e);
//         for (const Frame& f : StackTraceView(e.get("stackTrace")).frames()) ...
//       },
//       [](const TypeInfo& type) { return type.name == "jdk.ExecutionSample"; });  // others are skipped
//
// Lifetimes: the event and the data stored inline in it live for the callback. What constant-pool
// references lead to — threads, stack traces, methods, classes and their strings — lives for the whole
// chunk, so `const RecordedObject*` of such constants can key per-chunk caches (e.g. one entry per
// distinct stack trace). Copy what must outlive that. Malformed input of any kind throws jfrbpf::Error
// with a one-line message naming the file and offset; chunks are decoded one at a time, so an error may
// surface after earlier chunks' events were delivered.
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/error.h"
#include "formats/jfr/reader/chunk.h"
#include "formats/jfr/reader/chunk_header.h"
#include "formats/jfr/reader/metadata.h"
#include "formats/jfr/reader/standard_types.h"
#include "formats/jfr/reader/value.h"

namespace jfrbpf::jfr::reader {

class Recording {
 public:
  // Maps the file and validates every chunk header. Throws jfrbpf::Error.
  static Recording open(const std::string& path);
  // Copies `bytes` (for tests and the fuzzer). Throws jfrbpf::Error.
  static Recording fromBytes(std::span<const uint8_t> bytes);

  Recording(Recording&&) noexcept;
  Recording& operator=(Recording&&) noexcept;
  ~Recording();

  const std::string& name() const { return name_; }  // the path, or "<memory>"
  std::span<const uint8_t> bytes() const;
  const std::vector<ChunkHeader>& chunks() const { return chunks_; }

  // Decodes the chunks one after another; each Chunk lives for its callback.
  void forEachChunk(const std::function<void(const Chunk&)>& callback) const;
  // Every event of every chunk, in file order.
  void forEachEvent(const EventCallback& callback, const TypeFilter& filter = {}) const;

 private:
  struct Storage;
  Recording(std::string name, std::unique_ptr<Storage> storage);
  [[noreturn]] void rethrowWithName(const std::exception& e) const;

  std::string name_;
  std::unique_ptr<Storage> storage_;
  std::vector<ChunkHeader> chunks_;
};

}  // namespace jfrbpf::jfr::reader
