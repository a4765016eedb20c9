/* The native side of NativeCalls.nativeSpin: a short chain of native frames (jni_outer -> jni_middle ->
 * jni_inner) below the JNI entry point, built without frame pointers. */
#include <jni.h>

#if defined(__clang__)
#define JNI_LINK __attribute__((noinline))
#else
#define JNI_LINK __attribute__((noinline, noclone))
#endif

volatile unsigned long jni_sink;

JNI_LINK unsigned long jni_inner(unsigned long seed, int rounds) {
  unsigned long h = seed;
  for (int i = 0; i < rounds; ++i) h = h * 2862933555777941757ul + 3037000493ul;
  return h;
}

JNI_LINK unsigned long jni_middle(unsigned long seed, int rounds) {
  unsigned long r = jni_inner(seed + 1, rounds);
  jni_sink += r;
  return r ^ seed;
}

JNI_LINK unsigned long jni_outer(unsigned long seed, int rounds) {
  unsigned long r = jni_middle(seed + 1, rounds);
  jni_sink += r;
  return r ^ seed;
}

JNIEXPORT jlong JNICALL Java_NativeCalls_nativeSpin(JNIEnv* env, jclass klass, jlong seed, jint rounds) {
  (void)env;
  (void)klass;
  return (jlong)jni_outer((unsigned long)seed, rounds);
}
