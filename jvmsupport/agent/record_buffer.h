#pragma once
// One record being serialized: header placeholder, payload, then the length patched in by finish().
// malloc-backed and capped at a record's maximum size, so a callback can never allocate without bound;
// a record that does not fit fails as a whole.
#include <cstddef>
#include <cstdint>

#include "jvmsupport/protocol/records.h"

namespace jfrbpf::agent {

class RecordBuffer {
 public:
  RecordBuffer() = default;
  RecordBuffer(const RecordBuffer&) = delete;
  RecordBuffer& operator=(const RecordBuffer&) = delete;
  ~RecordBuffer();

  // Starts a record of `type`, discarding anything before.
  void begin(protocol::RecordType type);
  // Patches the payload length; false if the record overflowed or allocation failed.
  bool finish();

  // The WireWriter sink interface.
  bool append(const void* data, size_t size);

  size_t payloadSize() const { return size_ - protocol::kRecordHeaderSize; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool ok() const { return ok_; }

 private:
  bool reserve(size_t total);

  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
  bool ok_ = false;
};

using Writer = protocol::WireWriter<RecordBuffer>;

}  // namespace jfrbpf::agent
