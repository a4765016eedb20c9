/* Native half of the demo: a checksum loop in C, reached from Java through JNI, so recordings show
 * Java frames under native ones. Built with frame pointers so even a plain frame-pointer walk passes it. */
#include <jni.h>
#include <stdint.h>

__attribute__((noinline)) uint64_t demo_fnv1a_round(const uint8_t* data, jsize length, uint64_t hash) {
  for (jsize i = 0; i < length; ++i) {
    hash ^= data[i];
    hash *= 1099511628211ull;
  }
  return hash;
}

JNIEXPORT jlong JNICALL Java_demo_NativeChecksum_fnv1a(JNIEnv* env, jclass cls, jbyteArray array, jint rounds) {
  (void)cls;
  jsize length = (*env)->GetArrayLength(env, array);
  jbyte* bytes = (*env)->GetByteArrayElements(env, array, NULL);
  if (!bytes) return 0;
  uint64_t hash = 14695981039346656037ull;
  for (jint r = 0; r < rounds; ++r) hash = demo_fnv1a_round((const uint8_t*)bytes, length, hash);
  (*env)->ReleaseByteArrayElements(env, array, bytes, JNI_ABORT);
  return (jlong)hash;
}
