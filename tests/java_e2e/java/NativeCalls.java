// Java calling native code: "jni-caller" loops through the native method nativeSpin (libjavae2e_jni.so,
// loaded from -Djava.library.path), "deflater" compresses with java.util.zip.Deflater (libzip -> libz).
import java.util.zip.Deflater;

public final class NativeCalls {
  static volatile long sink;

  static native long nativeSpin(long seed, int rounds);

  public static void main(String[] args) throws Throwable {
    System.loadLibrary("javae2e_jni");
    E2eSupport.start("jni-caller", NativeCalls::callNativeForever);
    E2eSupport.start("deflater", NativeCalls::deflateForever);
    E2eSupport.runFor(E2eSupport.seconds(args));
  }

  static void callNativeForever() {
    while (true) {
      callNative(); // LINE:forever-calls-native
    }
  }

  static void callNative() {
    sink += nativeSpin(sink, 2_000_000); // LINE:calls-native
  }

  static void deflateForever() {
    byte[] input = new byte[256 * 1024];
    long h = 1;
    for (int i = 0; i < input.length; i++) {
      h = h * 6364136223846793005L + 1442695040888963407L;
      input[i] = (byte) ('a' + ((h >>> 58) & 7));  // compressible, but not trivially
    }
    byte[] output = new byte[64 * 1024];
    Deflater deflater = new Deflater(Deflater.BEST_COMPRESSION);
    while (true) {
      sink += compress(deflater, input, output); // LINE:forever-calls-compress
    }
  }

  static long compress(Deflater deflater, byte[] input, byte[] output) {
    deflater.reset();
    deflater.setInput(input);
    deflater.finish();
    long total = 0;
    while (!deflater.finished()) {
      total += deflater.deflate(output); // LINE:compress-calls-deflate
    }
    return total;
  }
}
