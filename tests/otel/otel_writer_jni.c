/* OtelContextApp's native side: the tests' process-context writer, called from Java. */
#include <jni.h>

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
