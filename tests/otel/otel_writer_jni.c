/* OtelContextApp's and OtelSwitchApp's native side: the tests' process-context writer, and a thread-context
 * writer, called from Java. */
#include <jni.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "otel_writer.h"

JNIEXPORT jint JNICALL Java_OtelContextApp_publish(JNIEnv* env, jclass cls, jstring serviceName) {
  (void)cls;
  const char* name = (*env)->GetStringUTFChars(env, serviceName, NULL);
  if (!name) return -1;
  const char* resource[] = {"service.name", name, "telemetry.sdk.language", "java"};
  const char* keys[] = {"http.route"};
  int result = otel_writer_publish(resource, 2, "tls_v1", keys, 1);
  (*env)->ReleaseStringUTFChars(env, serviceName, name);
  return result;
}

/* OtelSwitchApp's: the thread-context variable (OTEP 4947) in this library, which the JVM loads with dlopen,
 * and the records context_switcher.c sets, one per (thread, context). */
__attribute__((visibility("default"))) __thread void* otel_thread_ctx_v1;

enum { kSwitchThreads = 16, kSwitchContexts = 3 };

struct __attribute__((packed)) context_record {
  uint8_t trace_id[16];
  uint8_t span_id[8];
  uint8_t valid;
  uint8_t trace_flags;
  uint16_t attrs_size;
  uint8_t attrs[64];
};

static struct context_record records[kSwitchThreads][kSwitchContexts] __attribute__((aligned(8)));

static void add_attribute(struct context_record* r, uint8_t key, const char* value) {
  size_t length = strlen(value);
  r->attrs[r->attrs_size] = key;
  r->attrs[r->attrs_size + 1] = (uint8_t)length;
  memcpy(&r->attrs[r->attrs_size + 2], value, length);
  r->attrs_size = (uint16_t)(r->attrs_size + 2 + length);
}

JNIEXPORT jint JNICALL Java_OtelSwitchApp_publishSwitcher(JNIEnv* env, jclass cls) {
  (void)env;
  (void)cls;
  for (int t = 0; t < kSwitchThreads; t++) {
    for (int k = 0; k < kSwitchContexts; k++) {
      struct context_record* r = &records[t][k];
      memset(r->trace_id, 0x5a, sizeof r->trace_id);
      r->trace_id[0] = (uint8_t)(0x10 + t);
      r->trace_id[1] = (uint8_t)k;
      memset(r->span_id, 0x33, sizeof r->span_id);
      r->span_id[0] = (uint8_t)(0x20 + t);
      r->span_id[1] = (uint8_t)k;
      r->valid = 1;
      r->trace_flags = k % 2 == 0 ? 1 : 0;
      char value[32];
      snprintf(value, sizeof value, "/route/%d", k);
      add_attribute(r, 0, value);
      snprintf(value, sizeof value, "t%d", t);
      add_attribute(r, 1, value);
    }
  }
  const char* resource[] = {"service.name", "switcher", "telemetry.sdk.language", "java"};
  const char* keys[] = {"http.route", "thread"};
  return otel_writer_publish(resource, 2, "tls_v1", keys, 2);
}

JNIEXPORT void JNICALL Java_OtelSwitchApp_setContext(JNIEnv* env, jclass cls, jint thread, jint context) {
  (void)env;
  (void)cls;
  if (thread >= 0 && thread < kSwitchThreads && context >= 0 && context < kSwitchContexts) {
    otel_thread_ctx_v1 = &records[thread][context];
  }
}

JNIEXPORT void JNICALL Java_OtelSwitchApp_clearContext(JNIEnv* env, jclass cls) {
  (void)env;
  (void)cls;
  otel_thread_ctx_v1 = NULL;
}
