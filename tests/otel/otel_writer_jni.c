/* OtelContextApp's and OtelSwitchApp's native side: the tests' process-context writer, and a thread-context
 * writer, called from Java. */
#include <jni.h>
#include <stdint.h>

#include "otel_writer.h"
#include "switch_records.h"

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
 * and the records context_switcher.c sets, one per (thread, context): switch_records.h. */
__attribute__((visibility("default"))) __thread void* otel_thread_ctx_v1;

enum { kSwitchThreads = 16, kSwitchContexts = 3 };

static struct switch_record records[kSwitchThreads][kSwitchContexts] __attribute__((aligned(8)));

JNIEXPORT jint JNICALL Java_OtelSwitchApp_publishSwitcher(JNIEnv* env, jclass cls) {
  (void)env;
  (void)cls;
  for (int t = 0; t < kSwitchThreads; t++) {
    for (int k = 0; k < kSwitchContexts; k++) switch_record_fill(&records[t][k], t, k);
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
