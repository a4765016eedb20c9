#include "jvmsupport/agent/record_buffer.h"

#include <cstdlib>
#include <cstring>

namespace jfrbpf::agent {

namespace {
constexpr size_t kMaxRecordSize = protocol::kRecordHeaderSize + protocol::kMaxPayload;
}

RecordBuffer::~RecordBuffer() { std::free(data_); }

void RecordBuffer::begin(protocol::RecordType type) {
  size_ = 0;
  ok_ = reserve(256);
  if (!ok_) return;
  uint32_t placeholder = 0;
  uint16_t typeValue = static_cast<uint16_t>(type);
  std::memcpy(data_, &placeholder, 4);
  std::memcpy(data_ + 4, &typeValue, 2);
  size_ = protocol::kRecordHeaderSize;
}

bool RecordBuffer::finish() {
  if (!ok_) return false;
  uint32_t length = static_cast<uint32_t>(payloadSize());
  std::memcpy(data_, &length, 4);
  return true;
}

bool RecordBuffer::append(const void* data, size_t size) {
  if (!ok_) return false;
  if (size > kMaxRecordSize - size_ || !reserve(size_ + size)) return ok_ = false;
  std::memcpy(data_ + size_, data, size);
  size_ += size;
  return true;
}

bool RecordBuffer::reserve(size_t total) {
  if (total <= capacity_) return true;
  size_t grown = capacity_ == 0 ? 256 : capacity_;
  while (grown < total) grown *= 2;
  if (grown > kMaxRecordSize) grown = kMaxRecordSize;
  void* bigger = std::realloc(data_, grown);
  if (bigger == nullptr) return false;
  data_ = static_cast<uint8_t*>(bigger);
  capacity_ = grown;
  return true;
}

}  // namespace jfrbpf::agent
