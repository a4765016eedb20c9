import jdk.jfr.Category;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Recording;
import jdk.jfr.Timespan;

// A small busy program for the reader tests: two named threads burning CPU in known methods (so execution
// samples have known stacks and line numbers), a custom event whose fields cover every Java field type
// and string encoding, and a second in-process recording that forces the main recording to rotate chunks.
public class JfrReaderWorkload {
  @Name("jfrreader.Marker")
  @Label("Reader Test Marker")
  @Category({"jfrbpf", "Tests"})
  static class Marker extends Event {
    String ascii;
    String latin1;
    String unicode;
    String nothing;
    String empty;
    boolean flag;
    byte smallByte;
    short smallShort;
    char letter;
    int negativeInt;
    long negativeLong;
    long bigLong;
    float ratio;
    double precise;
    @Timespan(Timespan.NANOSECONDS) long elapsed;
    Class<?> clazz;
    Thread thread;
  }

  static volatile long sink;

  static long compute(int n) {
    long acc = 0;
    for (int i = 0; i < n; i++) {
      acc += (i * 31L) ^ (acc >>> 3);
    }
    return acc;
  }

  static long recurse(int depth) {
    if (depth == 0) return compute(20000);
    return recurse(depth - 1) + 1;
  }

  static void mark(int i) {
    Marker m = new Marker();
    m.ascii = "marker-" + i;
    m.latin1 = "café crème " + i;
    m.unicode = "λ→∑ 😀 " + i;
    m.nothing = null;
    m.empty = "";
    m.flag = (i & 1) == 1;
    m.smallByte = (byte) -i;
    m.smallShort = (short) (-1000 * i);
    m.letter = (char) ('A' + i % 26);
    m.negativeInt = -123456 * (i + 1);
    m.negativeLong = Long.MIN_VALUE + i;
    m.bigLong = Long.MAX_VALUE - i;
    m.ratio = -1.5f * i;
    m.precise = Math.PI * i;
    m.elapsed = 1_000_000L * i;
    m.clazz = JfrReaderWorkload.class;
    m.thread = Thread.currentThread();
    m.commit();
  }

  public static void main(String[] args) throws Exception {
    long durationMs = Long.parseLong(args[0]);
    long end = System.nanoTime() + durationMs * 1_000_000L;
    Thread worker = new Thread(() -> {
      while (System.nanoTime() < end) sink += recurse(8);
    }, "jfrreader-worker");
    worker.start();
    for (int i = 0; i < 10; i++) mark(i);
    long rotateAt = System.nanoTime() + durationMs * 500_000L;
    boolean rotated = false;
    while (System.nanoTime() < end) {
      sink += compute(50000);
      if (!rotated && System.nanoTime() > rotateAt) {
        // Starting and stopping another recording makes the running one start a new chunk.
        try (Recording other = new Recording()) {
          other.start();
          mark(100);
          other.stop();
        }
        rotated = true;
      }
    }
    worker.join();
  }
}
