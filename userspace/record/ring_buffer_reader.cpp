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
  // The BPF side wakes us only when the ring fills up; otherwise the timeout is the drain period.
  int woken = ring_buffer__poll(ring_, timeoutMs);
  int drained = ring_buffer__consume(ring_);
  return (woken < 0 ? 0 : woken) + (drained < 0 ? 0 : drained);  // EINTR and friends: the loop tries again
}

int RingBufferReader::drain() {
  int n = ring_buffer__consume(ring_);
  return n < 0 ? 0 : n;
}

}  // namespace jfrbpf::record
