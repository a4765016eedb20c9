package demo;

/** JNI binding to libjfrbpf-demo-native.so. */
final class NativeChecksum {
    static {
        System.loadLibrary("jfrbpf-demo-native");
    }

    private NativeChecksum() {
    }

    /** FNV-1a over {@code data}, {@code rounds} times, computed in C. */
    static native long fnv1a(byte[] data, int rounds);
}
