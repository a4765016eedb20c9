// CPU-bound tasks on virtual threads (one per task, named as a thread factory numbers them: "task-17"), for as
// many seconds as the first argument says. Each task computes in rounds and between them yields or parks for a
// moment, so that virtual threads unmount and mount again, on another carrier as often as not. Prints
// "ready" once the first tasks ran, then "done <tasks>" at the end.
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.locks.LockSupport;

public class VirtualThreadWork {
  static volatile long sink;

  static long compute(long seed, int iterations) {
    long x = seed;
    for (int i = 0; i < iterations; i++) {
      x = x * 6364136223846793005L + 1442695040888963407L;
      x ^= x >>> 29;
    }
    return x;
  }

  static void task(long seed) {
    long x = seed;
    for (int round = 0; round < 8; round++) {
      x = compute(x, 200_000);
      if (round % 3 == 1) {
        Thread.yield();
      } else if (round % 3 == 2) {
        LockSupport.parkNanos(50_000);
      }
    }
    sink += x;
  }

  public static void main(String[] args) throws Exception {
    long end = System.nanoTime() + Long.parseLong(args[0]) * 1_000_000_000L;
    long tasks = 0;
    boolean announced = false;
    try (ExecutorService executor = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("task-", 0).factory())) {
      while (System.nanoTime() < end) {
        List<Future<?>> batch = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
          long seed = tasks++;
          batch.add(executor.submit(() -> task(seed)));
        }
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
