#pragma once
// The bounded buffer between JVMTI callbacks (any thread) and the agent thread that sends. Producers copy
// a whole record in or drop it (counted); the lock is held only for that copy. The single consumer reads
// the oldest bytes in place (no lock while sending: producers never overwrite unconsumed bytes) and then
// releases them.
#include <pthread.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace jfrbpf::agent {

class RecordRing {
 public:
  RecordRing() = default;
  RecordRing(const RecordRing&) = delete;
  RecordRing& operator=(const RecordRing&) = delete;

  // Allocates the storage for one session (after release(), or again with the same capacity); false if
  // memory is not available.
  bool init(size_t capacity);
  // Frees the storage between sessions; pushes then fail (and count) until the next init().
  void release();

  // Copies the record in whole, or returns false (and counts it as dropped). `wasEmpty` tells the
  // producer to wake the consumer.
  bool push(const uint8_t* data, size_t size, bool& wasEmpty);
  // Like push, but a full ring is not a loss: the caller will make room and retry.
  bool tryPush(const uint8_t* data, size_t size, bool& wasEmpty);

  // Empties the ring and puts `first` then `second` at its start, atomically with respect to producers:
  // a new session's first bytes can never follow a stale record. Resets the drop counters.
  void resetWith(const uint8_t* first, size_t firstSize, const uint8_t* second, size_t secondSize);

  // Consumer: the oldest contiguous unread bytes (possibly only part of what is buffered).
  const uint8_t* peek(size_t& size);
  void consume(size_t size);

  size_t used();
  size_t capacity() const { return capacity_; }
  uint64_t droppedRecords() const { return droppedRecords_.load(std::memory_order_relaxed); }
  uint64_t droppedBytes() const { return droppedBytes_.load(std::memory_order_relaxed); }

 private:
  bool copyIn(const uint8_t* data, size_t size, bool& wasEmpty);

  pthread_mutex_t lock_ = PTHREAD_MUTEX_INITIALIZER;
  uint8_t* storage_ = nullptr;
  size_t capacity_ = 0;
  size_t head_ = 0;  // next byte to read
  size_t used_ = 0;
  std::atomic<uint64_t> droppedRecords_{0};
  std::atomic<uint64_t> droppedBytes_{0};
};

}  // namespace jfrbpf::agent
