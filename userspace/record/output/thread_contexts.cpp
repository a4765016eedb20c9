#include "userspace/record/output/thread_contexts.h"

#include <span>

#include "userspace/otel/thread_context_record.h"

namespace jfrbpf::record {

bool contextFits(const jfrbpf_sample_record& record, size_t size) {
  return record.context_size <= JFRBPF_CONTEXT_MAX_SIZE &&
         JFRBPF_SAMPLE_RECORD_SIZE(record.user_depth, record.kernel_depth, record.context_size) <= size;
}

jfr::TraceContext ThreadContexts::of(const jfrbpf_sample_record& record) {
  const uint32_t status = record.context_status < JFRBPF_CONTEXT_STATUS_COUNT ? record.context_status
                                                                             : JFRBPF_CONTEXT_NOT_READ;
  ++counts_.byStatus[status];
  jfr::TraceContext context;
  context.notRead = contextNotReadCause(status);
  if (status != JFRBPF_CONTEXT_READ && status != JFRBPF_CONTEXT_TOO_LARGE) return context;
  const size_t words = 2 * size_t{record.user_depth} + record.kernel_depth;
  const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(&record.data[words]), record.context_size);
  // A record over the bound carries the header only: its trace and span, and why the attributes are missing.
  std::vector<uint8_t> header;
  std::span<const uint8_t> decoded = bytes;
  if (status == JFRBPF_CONTEXT_TOO_LARGE) {
    header.assign(bytes.begin(), bytes.end());
    if (header.size() >= otel::kThreadContextHeaderBytes) header[26] = header[27] = 0;
    decoded = header;
  }
  const std::optional<otel::ThreadContextRecord> decodedRecord = otel::decodeThreadContextRecord(decoded);
  if (!decodedRecord) {
    context.notRead = "record malformed";
    return context;
  }
  context.traceIdHi = decodedRecord->traceIdHi;
  context.traceIdLo = decodedRecord->traceIdLo;
  context.spanId = decodedRecord->spanId;
  context.traceFlags = decodedRecord->traceFlags;
  attributes_.clear();
  auto names = keyNames_.find(static_cast<pid_t>(record.tgid));
  static const std::vector<std::string> kNoNames;
  otel::renderAttributes(*decodedRecord, names != keyNames_.end() ? names->second : kNoNames, attributes_);
  context.attributes = attributes_;
  return context;
}

}  // namespace jfrbpf::record
