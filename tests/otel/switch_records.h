/* The thread-context records (OTEP 4947) the tests' switching threads set, in C (context_switcher.c) and in a
 * JVM (otel_writer_jni.c): thread t's record for context k holds
 *   trace id  10+t, k, then 14 bytes of 5a;   span id  20+t, k, then 6 bytes of 33;
 *   flags     1 (sampled) for even k, else 0; attributes  key 0 "/route/k", key 1 "t<t>",
 * which the tests expect back on every event taken while it was set. */
#ifndef JFRBPF_TESTS_SWITCH_RECORDS_H
#define JFRBPF_TESTS_SWITCH_RECORDS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The record's layout: 28 bytes of header, then (key, length, value) entries, byte-packed. */
struct __attribute__((packed)) switch_record {
  uint8_t trace_id[16];
  uint8_t span_id[8];
  uint8_t valid;
  uint8_t trace_flags;
  uint16_t attrs_size;
  uint8_t attrs[64];
};

void switch_record_fill(struct switch_record* record, int thread, int context);

#ifdef __cplusplus
}
#endif

#endif
