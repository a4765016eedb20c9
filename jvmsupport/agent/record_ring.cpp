#include "jvmsupport/agent/record_ring.h"

#include <cstdlib>
#include <cstring>

namespace jfrbpf::agent {

namespace {
class Locked {
 public:
  explicit Locked(pthread_mutex_t& m) : m_(m) { pthread_mutex_lock(&m_); }
  ~Locked() { pthread_mutex_unlock(&m_); }
  Locked(const Locked&) = delete;
  Locked& operator=(const Locked&) = delete;

 private:
  pthread_mutex_t& m_;
};
}  // namespace

bool RecordRing::init(size_t capacity) {
  Locked hold(lock_);
  head_ = 0;
  used_ = 0;
  if (storage_ != nullptr && capacity_ == capacity) return true;
  std::free(storage_);
  storage_ = static_cast<uint8_t*>(std::malloc(capacity));
  capacity_ = storage_ != nullptr ? capacity : 0;
  return storage_ != nullptr;
}

void RecordRing::release() {
  Locked hold(lock_);
  std::free(storage_);
  storage_ = nullptr;
  capacity_ = 0;
  head_ = 0;
  used_ = 0;
}

bool RecordRing::copyIn(const uint8_t* data, size_t size, bool& wasEmpty) {
  wasEmpty = used_ == 0;
  if (storage_ == nullptr || size > capacity_ - used_) return false;
  size_t tail = (head_ + used_) % capacity_;
  size_t first = size < capacity_ - tail ? size : capacity_ - tail;
  std::memcpy(storage_ + tail, data, first);
  std::memcpy(storage_, data + first, size - first);
  used_ += size;
  return true;
}

bool RecordRing::push(const uint8_t* data, size_t size, bool& wasEmpty) {
  bool stored;
  {
    Locked hold(lock_);
    stored = copyIn(data, size, wasEmpty);
  }
  if (!stored) {
    droppedRecords_.fetch_add(1, std::memory_order_relaxed);
    droppedBytes_.fetch_add(size, std::memory_order_relaxed);
  }
  return stored;
}

bool RecordRing::tryPush(const uint8_t* data, size_t size, bool& wasEmpty) {
  Locked hold(lock_);
  return copyIn(data, size, wasEmpty);
}

void RecordRing::resetWith(const uint8_t* first, size_t firstSize, const uint8_t* second, size_t secondSize) {
  Locked hold(lock_);
  head_ = 0;
  used_ = 0;
  droppedRecords_.store(0, std::memory_order_relaxed);
  droppedBytes_.store(0, std::memory_order_relaxed);
  bool ignored;
  copyIn(first, firstSize, ignored);
  copyIn(second, secondSize, ignored);
}

const uint8_t* RecordRing::peek(size_t& size) {
  Locked hold(lock_);
  if (storage_ == nullptr) return size = 0, nullptr;
  size_t contiguous = capacity_ - head_;
  size = used_ < contiguous ? used_ : contiguous;
  return storage_ + head_;
}

void RecordRing::consume(size_t size) {
  Locked hold(lock_);
  if (storage_ == nullptr) return;
  if (size > used_) size = used_;
  head_ = (head_ + size) % capacity_;
  used_ -= size;
  if (used_ == 0) head_ = 0;
}

size_t RecordRing::used() {
  Locked hold(lock_);
  return used_;
}

}  // namespace jfrbpf::agent
