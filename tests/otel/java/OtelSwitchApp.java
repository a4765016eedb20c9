// A JVM whose threads switch OpenTelemetry thread contexts every SWITCH_US microseconds through the tests'
// JNI writer (otel_writer_jni.c), as context_switcher.c does in C: OtelSwitchApp JNI_LIBRARY THREADS SWITCH_US
// [waits]. Thread t ("switch-t") sets its context k (0..2) around spinCtx<k> and none around spinOutside; it
// prints "switching" once every thread has set a context, and runs until killed. With `waits`, the threads wait
// in their contexts instead: waitCtx<k> blocks on a monitor the others hold and sleeps holding it, so that
// off-CPU samples, lock events and traces of waitCtx<k> are taken in context k.
import java.util.concurrent.CountDownLatch;

public final class OtelSwitchApp {
  static native int publishSwitcher();
  static native void setContext(int thread, int context);
  static native void clearContext();

  static long switchNanos;
  static volatile long sink;

  static void burn() {
    long until = System.nanoTime() + switchNanos;
    long s = 0;
    while (System.nanoTime() < until) {
      for (int i = 0; i < 200; i++) s += (long) i * i;
    }
    sink += s;
  }

  static void spinCtx0() { burn(); }
  static void spinCtx1() { burn(); }
  static void spinCtx2() { burn(); }
  static void spinOutside() { burn(); }

  static final Object LOCK = new Object();

  static void holdAndSleep() {
    synchronized (LOCK) {
      try {
        Thread.sleep(2);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  static void waitCtx0() { holdAndSleep(); }
  static void waitCtx1() { holdAndSleep(); }
  static void waitCtx2() { holdAndSleep(); }

  static void waitLoop(int thread) {
    for (;;) {
      setContext(thread, 0);
      waitCtx0();
      clearContext();
      spinOutside();
      setContext(thread, 1);
      waitCtx1();
      clearContext();
      spinOutside();
      setContext(thread, 2);
      waitCtx2();
      clearContext();
      spinOutside();
    }
  }

  public static void main(String[] args) throws InterruptedException {
    System.load(args[0]);
    int threads = Integer.parseInt(args[1]);
    switchNanos = Long.parseLong(args[2]) * 1000;
    boolean waits = args.length > 3 && args[3].equals("waits");
    if (publishSwitcher() != 0) throw new IllegalStateException("publish failed");
    CountDownLatch set = new CountDownLatch(threads);
    for (int t = 0; t < threads; t++) {
      final int thread = t;
      new Thread(() -> {
        setContext(thread, 0);
        clearContext();
        set.countDown();
        if (waits) waitLoop(thread);
        for (;;) {
          setContext(thread, 0);
          spinCtx0();
          clearContext();
          spinOutside();
          setContext(thread, 1);
          spinCtx1();
          clearContext();
          spinOutside();
          setContext(thread, 2);
          spinCtx2();
          clearContext();
          spinOutside();
        }
      }, "switch-" + t).start();
    }
    set.await();
    System.out.println("switching");
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }
}
