#pragma once
// RAII over libbpf's ring buffer consumer for the sampler's records.
#include <cstddef>
#include <functional>

struct ring_buffer;

namespace jfrbpf::record {

class RingBufferReader {
 public:
  using Handler = std::function<void(const void* data, size_t size)>;
  RingBufferReader(int mapFd, Handler handler);  // throws jfrbpf::Error
  ~RingBufferReader();
  RingBufferReader(const RingBufferReader&) = delete;
  RingBufferReader& operator=(const RingBufferReader&) = delete;

  // Waits up to `timeoutMs`, less if the ring fills up; handles nothing.
  void wait(int timeoutMs);
  // Handles everything currently in the buffer without waiting.
  int drain();

 private:
  static int onRecord(void* self, void* data, size_t size);
  ring_buffer* ring_ = nullptr;
  Handler handler_;
};

}  // namespace jfrbpf::record
