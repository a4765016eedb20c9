/* A writer of OpenTelemetry's process context (OTEP 4719) for jfrbpf's tests, written from the OTEP: what a
 * service's SDK publishes for profilers outside the process. Plain C, so that the tests can link it into C
 * programs and JVMs (through JNI) alike. Not thread-safe: one thread publishes. */
#ifndef JFRBPF_TESTS_OTEL_WRITER_H
#define JFRBPF_TESTS_OTEL_WRITER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Publishes this process's context, or replaces the one published (the update protocol: published_at_ns 0
 * while the payload is swapped). `resource` holds `resource_count` key, value pairs (string values); with a
 * non-NULL `schema`, threadlocal.schema_version and threadlocal.attribute_key_map (`keys`, `key_count`) go in
 * the extra attributes. Returns 0, or -1 with errno. */
int otel_writer_publish(const char* const* resource, size_t resource_count, const char* schema,
                        const char* const* keys, size_t key_count);

/* Publishes `payload` as it is (a test's hostile or hand-made message), with `version` in the header. */
int otel_writer_publish_raw(const uint8_t* payload, uint32_t size, uint32_t version);

/* The header's address, for tests that change it under a reader. */
void* otel_writer_header(void);

#ifdef __cplusplus
}
#endif

#endif
