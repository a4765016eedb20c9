// Waits of virtual threads, in batches half a second apart: each batch starts 200 virtual threads that each
// sleep once for 20 ms in sleeper() (a wait that unmounts them) and measure it, then prints
// "batch <start> <end> <sleeps> <sleptNanos>", start and end in UTC nanoseconds of the day. Prints "ready"
// after the first batch; runs for as many seconds as the first argument says.
import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

public class VirtualThreadWaits {
  static final int THREADS = 200;

  static long nanosOfDay() {
    Instant now = Instant.now();
    return (now.getEpochSecond() % 86_400) * 1_000_000_000L + now.getNano();
  }

  static void sleeper(AtomicLong sleeps, AtomicLong slept) {
    long start = System.nanoTime();
    try {
      Thread.sleep(20);
    } catch (InterruptedException e) {
      return;
    }
    slept.addAndGet(System.nanoTime() - start);
    sleeps.incrementAndGet();
  }

  public static void main(String[] args) throws Exception {
    long end = System.nanoTime() + Long.parseLong(args[0]) * 1_000_000_000L;
    boolean announced = false;
    while (System.nanoTime() < end) {
      AtomicLong sleeps = new AtomicLong(), slept = new AtomicLong();
      long batchStart = nanosOfDay();
      try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
        for (int i = 0; i < THREADS; i++) executor.submit(() -> sleeper(sleeps, slept));
      }
      System.out.println("batch " + batchStart + " " + nanosOfDay() + " " + sleeps.get() + " " + slept.get());
      if (!announced) {
        System.out.println("ready");
        announced = true;
      }
      System.out.flush();
      Thread.sleep(500);
    }
    System.out.println("done");
  }
}
