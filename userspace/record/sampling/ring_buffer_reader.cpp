#include "userspace/record/sampling/ring_buffer_reader.h"

#include <sys/epoll.h>

#include <bpf/libbpf.h>

#include "base/error.h"

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

void RingBufferReader::wait(int timeoutMs) {
  // The BPF side wakes us only when the ring fills up; otherwise the timeout is the drain period. EINTR
  // and friends end the wait early, which only means an early drain.
  epoll_event event{};
  ::epoll_wait(ring_buffer__epoll_fd(ring_), &event, 1, timeoutMs);
}

int RingBufferReader::drain() {
  int n = ring_buffer__consume(ring_);
  return n < 0 ? 0 : n;
}

}  // namespace jfrbpf::record
