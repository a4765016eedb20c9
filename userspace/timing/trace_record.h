#pragma once
// One record of the traces ring buffer: struct jfrbpf_trace_head, then a sample record of user frames only
// (bpf/method_timer_abi.h).
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "bpf/method_timer_abi.h"

namespace jfrbpf::timing {

// Copies the head into `head` and the record into `record` (the ring gives no alignment guarantee beyond 8
// bytes, and a record is usually shorter than the struct). False when the record is malformed.
inline bool decodeTraceRecord(const void* data, size_t size, jfrbpf_trace_head& head, jfrbpf_sample_record& record) {
  if (size < JFRBPF_TRACE_HEAD_SIZE + JFRBPF_SAMPLE_HEADER_SIZE) return false;
  std::memcpy(&head, data, sizeof head);
  const size_t recordSize = size - JFRBPF_TRACE_HEAD_SIZE;
  std::memcpy(&record, static_cast<const uint8_t*>(data) + JFRBPF_TRACE_HEAD_SIZE,
              std::min(recordSize, sizeof(jfrbpf_sample_record)));
  return record.user_depth <= JFRBPF_MAX_USER_FRAMES && record.kernel_depth == 0 &&
         record.context_size <= JFRBPF_CONTEXT_MAX_SIZE &&
         JFRBPF_SAMPLE_RECORD_SIZE(record.user_depth, 0, record.context_size) <= recordSize;
}

}  // namespace jfrbpf::timing
