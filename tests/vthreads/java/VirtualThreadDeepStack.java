// Virtual threads that compute at the bottom of a deep recursion and yield between rounds, for as many seconds
// as the first argument says: recurse(n) calls itself down to n = 0, where it computes and yields in turns.
// A resumed virtual thread gets only its top frames back on its carrier's stack (the JVM thaws lazily when
// a continuation has this many frames), so nearly every sample taken while it computes has most of its
// stack frozen in the continuation's stack chunks on the heap. Each task's depth is known: recurse runs
// DEPTH + task % 8 + 1 times. Prints "ready" once the first tasks ran, then "done <tasks>".
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

public class VirtualThreadDeepStack {
  static final int DEPTH = 120;
  static volatile long sink;

  static long compute(long x) {
    for (int i = 0; i < 300_000; i++) {
      x = x * 6364136223846793005L + 1442695040888963407L;
      x ^= x >>> 29;
    }
    return x;
  }

  static long recurse(int depth, long x) {
    if (depth == 0) {
      for (int round = 0; round < 20; round++) {
        x = compute(x);
        Thread.yield();
      }
      return x;
    }
    return recurse(depth - 1, x + depth) + 1;
  }

  public static void main(String[] args) throws Exception {
    long end = System.nanoTime() + Long.parseLong(args[0]) * 1_000_000_000L;
    long tasks = 0;
    boolean announced = false;
    try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
      while (System.nanoTime() < end) {
        List<Future<?>> batch = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
          final int depth = DEPTH + i;
          batch.add(executor.submit(() -> { sink += recurse(depth, depth); }));
        }
        tasks += batch.size();
        for (Future<?> f : batch) f.get();
        if (!announced) {
          System.out.println("ready");
          System.out.flush();
          announced = true;
        }
      }
    }
    System.out.println("done " + tasks);
  }
}
