#define _GNU_SOURCE
#include "otel_writer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#ifndef PR_SET_VMA
#define PR_SET_VMA 0x53564d41
#define PR_SET_VMA_ANON_NAME 0
#endif

struct header {
  char signature[8];
  uint32_t version;
  uint32_t payload_size;
  uint64_t published_at_ns;
  uint64_t payload;
};

static struct header* mapped;
static uint8_t* current;

/* A growing buffer of protobuf bytes. */
struct buffer {
  uint8_t* data;
  size_t size;
};

static void put(struct buffer* b, const void* bytes, size_t n) {
  b->data = realloc(b->data, b->size + n);
  memcpy(b->data + b->size, bytes, n);
  b->size += n;
}

static void put_varint(struct buffer* b, uint64_t value) {
  do {
    uint8_t byte = value & 0x7f;
    value >>= 7;
    if (value) byte |= 0x80;
    put(b, &byte, 1);
  } while (value);
}

/* Field `number` of wire type LEN holding `bytes`. */
static void put_field(struct buffer* b, unsigned number, const void* bytes, size_t n) {
  put_varint(b, (uint64_t)number << 3 | 2);
  put_varint(b, n);
  put(b, bytes, n);
}

/* KeyValue { key = 1; AnyValue value = 2 } with AnyValue { string_value = 1 } or { array_value = 5 }. */
static void put_attribute(struct buffer* b, unsigned number, const char* key, const char* value,
                          const char* const* array, size_t array_count) {
  struct buffer any = {0}, pair = {0};
  if (value) {
    put_field(&any, 1, value, strlen(value));
  } else {
    struct buffer values = {0};
    for (size_t i = 0; i < array_count; i++) {
      struct buffer element = {0};
      put_field(&element, 1, array[i], strlen(array[i]));
      put_field(&values, 1, element.data, element.size);
      free(element.data);
    }
    put_field(&any, 5, values.data, values.size);
    free(values.data);
  }
  put_field(&pair, 1, key, strlen(key));
  put_field(&pair, 2, any.data, any.size);
  put_field(b, number, pair.data, pair.size);
  free(any.data);
  free(pair.data);
}

static uint64_t boottime_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_BOOTTIME, &now);
  return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static int map_header(void) {
  if (mapped) return 0;
  int fd = memfd_create("OTEL_CTX", MFD_CLOEXEC);
  if (fd < 0) return -1;
  if (ftruncate(fd, sizeof(struct header)) != 0) {
    close(fd);
    return -1;
  }
  void* at = mmap(NULL, sizeof(struct header), PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  close(fd);
  if (at == MAP_FAILED) return -1;
  /* Names the mapping [anon_shmem:OTEL_CTX] where the kernel can; /memfd:OTEL_CTX (deleted) otherwise. */
  prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, (unsigned long)at, sizeof(struct header), "OTEL_CTX");
  mapped = at;
  return 0;
}

int otel_writer_publish_raw(const uint8_t* payload, uint32_t size, uint32_t version) {
  if (map_header() != 0) return -1;
  uint8_t* copy = malloc(size ? size : 1);
  if (!copy) return -1;
  memcpy(copy, payload, size);
  uint64_t previous = mapped->published_at_ns;
  __atomic_store_n(&mapped->published_at_ns, 0, __ATOMIC_SEQ_CST);
  memcpy(mapped->signature, "OTEL_CTX", 8);
  mapped->version = version;
  mapped->payload_size = size;
  mapped->payload = (uint64_t)(uintptr_t)copy;
  uint64_t now = boottime_ns();
  __atomic_store_n(&mapped->published_at_ns, now > previous ? now : previous + 1, __ATOMIC_SEQ_CST);
  free(current);  /* a reader that took the old pointer sees the timestamp change and reads again */
  current = copy;
  return 0;
}

int otel_writer_publish(const char* const* resource, size_t resource_count, const char* schema,
                        const char* const* keys, size_t key_count) {
  struct buffer attributes = {0}, message = {0};
  for (size_t i = 0; i < resource_count; i++) put_attribute(&attributes, 1, resource[2 * i], resource[2 * i + 1], NULL, 0);
  put_field(&message, 1, attributes.data, attributes.size);  /* ProcessContext.resource */
  if (schema) {
    put_attribute(&message, 2, "threadlocal.schema_version", schema, NULL, 0);
    put_attribute(&message, 2, "threadlocal.attribute_key_map", NULL, keys, key_count);
  }
  int result = otel_writer_publish_raw(message.data, (uint32_t)message.size, 2);
  free(attributes.data);
  free(message.data);
  return result;
}

void* otel_writer_header(void) { return mapped; }
