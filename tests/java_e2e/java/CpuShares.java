// Threads with different CPU shares for the truth tests: each worker alternates busy and idle periods
// ("share-<busy>-<idle>" in milliseconds) until the given seconds are over, measures its own CPU time, and
// main prints "cpu <name> <tid> <ns>" for all of them before exiting.
import java.util.ArrayList;
import java.util.List;

public final class CpuShares {
  static volatile long sink;

  public static void main(String[] args) throws Throwable {
    double seconds = E2eSupport.seconds(args);
    long end = System.nanoTime() + (long) (seconds * 1e9);
    int[][] dutyCycles = {{10, 0}, {6, 4}, {3, 7}, {1, 9}};
    List<Thread> workers = new ArrayList<>();
    for (int[] duty : dutyCycles) {
      String name = "share-" + duty[0] + "-" + duty[1];
      workers.add(E2eSupport.start(name, () -> work(duty[0], duty[1], end)));
    }
    for (Thread worker : workers) worker.join();
    E2eSupport.printCpuTimes();
  }

  static void work(int busyMs, int idleMs, long end) {
    try {
      while (System.nanoTime() < end) {
        long busyUntil = System.nanoTime() + busyMs * 1_000_000L;
        while (System.nanoTime() < busyUntil) sink += spin(sink);
        if (idleMs > 0) Thread.sleep(idleMs);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    E2eSupport.reportOwnCpuTime();
  }

  static long spin(long seed) {
    long h = seed;
    for (int i = 0; i < 1_000; i++) h = h * 6364136223846793005L + 1442695040888963407L;
    return h;
  }
}
