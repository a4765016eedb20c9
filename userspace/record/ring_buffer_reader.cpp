#include "userspace/record/ring_buffer_reader.h"

#include <bpf/libbpf.h>

#include "userspace/base/error.h"

namespace jfrbpf::record {

RingBufferReader::RingBufferReader(int mapFd, Handler handler) : handler_(std::move(handler)) {
  ring_ = ring_buffer__new(mapFd, &RingBufferReader::onRecord, this, nullptr);
  if (!ring_) throw systemError("opening the sampler's ring buffer");
}

RingBufferReader::~RingBufferReader() { ring_buffer__free(ring_); }

int RingBufferReader::onRecord(void* self, void* data, size_t size) {
  static_cast<RingBufferReader*>(self)->handler_(data, size);
  return 0;
}

int RingBufferReader::poll(int timeoutMs) {
  int n = ring_buffer__poll(ring_, timeoutMs);
  return n < 0 ? 0 : n;  // EINTR and friends: the caller's loop tries again
}

int RingBufferReader::drain() {
  int n = ring_buffer__consume(ring_);
  return n < 0 ? 0 : n;
}

}  // namespace jfrbpf::record
