// Java workloads for the sampler benchmarks (bench/sampler).
//
//   deep DEPTH THREADS         each thread calls descend() DEPTH deep, burns about 100 us at the bottom,
//                              returns and starts again, forever: after warm-up every sample sees DEPTH
//                              compiled frames of descend() (run with -XX:CompileCommand=dontinline for
//                              descend and leafWork so that each is one physical frame); prints "warm"
//                              once the JIT has settled
//   distinct DEPTH THREADS     as deep, but every level is a different method: DEPTH + 1 copies of the class
//                              Hop, each defined by its own class loader, so each is compiled on its own and
//                              a walker meets DEPTH + 1 distinct code blobs (run with dontinline for
//                              SamplerWorkload$Hop::apply)
//   throughput THREADS WARMUP [zlib|alloc|lock]
//                              CPU-bound units of work on THREADS threads (with zlib, every second thread
//                              compresses a buffer through the JDK's Deflater instead: JNI into libz; with
//                              alloc, every thread's unit allocates short-lived arrays, about 1 GB/s; with
//                              lock, every unit enters one monitor shared by all threads, now and then waits
//                              on it, and a holder thread blocks them all for 25 ms once a second); prints
//                              "warm" after WARMUP seconds once the JIT has settled, then reads lines on stdin
//                              until it closes: each "go SECONDS" measures a window of SECONDS and prints
//                              "ops THREAD OPS_PER_SECOND OPS_PER_CPU_SECOND OPS CPU_NS" per thread (per second
//                              of wall time, per second of that thread's own CPU time, the window's units and
//                              the thread's CPU time in it), then "done"
//
// Both print "ready" once every thread runs. See bench/sampler/bench_*.cpp for how they are measured.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.zip.Deflater;

public final class SamplerWorkload {
  private static volatile long sink;

  // One physical frame per level: the benchmark asks the JIT not to inline it.
  static long descend(int depth, long seed) {
    if (depth == 0) return leafWork(seed);
    long below = descend(depth - 1, seed + depth);
    return below ^ (seed * 31 + depth);
  }

  /** One level of the distinct-methods chain; public so that copies in other class loaders can reach it. */
  public interface Step {
    long apply(int depth, long seed);
  }

  public static final class Hop implements Step {
    public Step next;

    @Override
    public long apply(int depth, long seed) {
      if (depth == 0) return leafWork(seed);
      long below = next.apply(depth - 1, seed + depth);
      return below ^ (seed * 31 + depth);
    }
  }

  // `levels` copies of Hop, each its own class (defined by its own loader), chained in order.
  private static Step distinctChain(int levels) throws Exception {
    byte[] bytes;
    try (var in = SamplerWorkload.class.getResourceAsStream("SamplerWorkload$Hop.class")) {
      bytes = in.readAllBytes();
    }
    Step first = null;
    Object previous = null;
    for (int level = 0; level < levels; ++level) {
      ClassLoader loader = new ClassLoader(SamplerWorkload.class.getClassLoader()) {
        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
          if (!name.equals(Hop.class.getName())) return super.loadClass(name, resolve);
          synchronized (getClassLoadingLock(name)) {
            Class<?> loaded = findLoadedClass(name);
            return loaded != null ? loaded : defineClass(name, bytes, 0, bytes.length);
          }
        }
      };
      Object hop = loader.loadClass(Hop.class.getName()).getConstructor().newInstance();
      if (previous != null) previous.getClass().getField("next").set(previous, hop);
      if (first == null) first = (Step) hop;
      previous = hop;
    }
    return first;
  }

  // About 100 us of arithmetic the JIT cannot fold away.
  public static long leafWork(long seed) {
    long x = seed | 1;
    for (int i = 0; i < 40_000; ++i) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
    }
    return x;
  }

  // The unit of work of the throughput benchmark: a moderately deep call chain (as real code has) over a
  // small array, a few microseconds each.
  static long unit(long[] data, int depth, long seed) {
    if (depth == 0) {
      long acc = seed;
      for (int i = 0; i < data.length; ++i) {
        data[i] = data[i] * 6364136223846793005L + acc;
        acc ^= data[i] >>> 29;
      }
      return acc;
    }
    return unit(data, depth - 1, seed + 1) + depth;
  }

  // Returns once the JIT compilers have been idle for a whole second (at most a minute): on a busy machine
  // compilation can take far longer than any fixed warm-up, and compiler threads compete with the workload.
  private static void awaitJitSettled() throws InterruptedException {
    CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
      Thread.sleep(5000);
      return;
    }
    long last = jit.getTotalCompilationTime();
    for (int second = 0; second < 60; ++second) {
      Thread.sleep(1000);
      long now = jit.getTotalCompilationTime();
      if (now == last) return;
      last = now;
    }
  }

  private static void deep(int depth, int threads, boolean distinct) throws Exception {
    CountDownLatch started = new CountDownLatch(threads);
    Step chain = distinct ? distinctChain(depth + 1) : null;
    for (int t = 0; t < threads; ++t) {
      final long seed = t + 1;
      Thread worker = new Thread(() -> {
        started.countDown();
        long s = seed;
        while (true) s = distinct ? chain.apply(depth, s) : descend(depth, s);
      }, "deep-" + t);
      worker.setDaemon(true);
      worker.start();
    }
    started.await();
    System.out.println("ready");
    System.out.flush();
    awaitJitSettled();
    System.out.println("warm");
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }

  // The zlib threads' unit: 16 KiB of half-compressible bytes through Deflater at the default level, a few
  // hundred microseconds in libz below Deflater.deflateBytesBytes.
  static long compressUnit(Deflater deflater, byte[] input, byte[] output, long seed) {
    for (int i = 0; i < input.length; i += 8) input[i] = (byte) (seed + i);
    deflater.reset();
    deflater.setInput(input);
    deflater.finish();
    long produced = 0;
    while (!deflater.finished()) produced += deflater.deflate(output);
    return seed + produced;
  }

  static final Object[][] allocSinks = new Object[64][16];

  // The alloc threads' unit: eight short-lived arrays (2.1 KB in all) filled and summed, the latest few kept
  // reachable for a moment so that the JIT cannot take them off the heap.
  static long allocUnit(Object[] sink, long seed) {
    long acc = seed;
    for (int k = 0; k < 8; ++k) {
      long[] block = new long[32];
      for (int i = 0; i < block.length; ++i) block[i] = acc + i;
      acc += block[(int) (acc & 31)];
      sink[(int) (acc & 15)] = block;
    }
    return acc;
  }

  static final Object lockMonitor = new Object();
  static final long[] lockShared = new long[256];

  // The lock threads' unit: a short unit of its own, then as much work again on data shared by all threads
  // under one monitor, which wakes a waiter if there is one. With the monitor held half the time, an entry is
  // often contended, and blocks rather than spins when the holder is preempted (more threads than CPUs).
  // Every 4096th unit waits on the monitor instead (at most 1 ms: another thread's next unit notifies it), so
  // that there are Object.wait events, and re-entries after them, besides the blocked entries.
  static long lockUnit(long[] data, long seed, long count) throws InterruptedException {
    long acc = unit(data, 4, seed);
    synchronized (lockMonitor) {
      acc = unit(lockShared, 0, acc);
      if ((count & 4095) == 0) {
        lockMonitor.wait(1);
      } else {
        lockMonitor.notify();
      }
    }
    return acc;
  }

  // Waits of at least JFR's default 20 ms threshold, which short critical sections never give: once a second
  // this thread holds the monitor for 25 ms (every worker blocks behind it), and it paces itself with a wait.
  static void holdLockNowAndThen() {
    final Object pacer = new Object();
    try {
      while (true) {
        synchronized (pacer) {
          pacer.wait(975);
        }
        synchronized (lockMonitor) {
          Thread.sleep(25);
        }
      }
    } catch (InterruptedException e) {
      // daemon thread: the JVM is exiting
    }
  }

  private static void throughput(int threads, double warmupSeconds, String mix) throws Exception {
    final boolean zlib = mix.equals("zlib"), alloc = mix.equals("alloc"), lock = mix.equals("lock");
    if (lock) {
      Thread holder = new Thread(SamplerWorkload::holdLockNowAndThen, "lock-holder");
      holder.setDaemon(true);
      holder.start();
    }
    AtomicLongArray ops = new AtomicLongArray(threads);
    CountDownLatch started = new CountDownLatch(threads);
    long[] threadIds = new long[threads];
    for (int t = 0; t < threads; ++t) {
      final int index = t;
      final boolean compress = zlib && (t & 1) == 1;
      Thread worker = new Thread(() -> {
        started.countDown();
        long[] data = new long[256];
        byte[] input = new byte[16 * 1024];
        for (int i = 0; i < input.length; ++i) input[i] = (byte) (i * 31 ^ i >> 7);
        byte[] output = new byte[input.length + 1024];
        Deflater deflater = new Deflater();
        long seed = index;
        long local = 0;
        // A compression unit takes as long as a few hundred Java units: its counter is published every unit.
        int publishMask = compress ? 0 : 255;
        while (true) {
          try {
            seed = compress ? compressUnit(deflater, input, output, seed)
                   : alloc  ? allocUnit(allocSinks[index & 63], seed)
                   : lock   ? lockUnit(data, seed, local)
                            : unit(data, 16, seed);
          } catch (InterruptedException e) {
            return;  // daemon thread: nobody interrupts it
          }
          // Published every few units so that the counter costs nothing measurable.
          if ((++local & publishMask) == 0) ops.lazySet(index, local);
        }
      }, (compress ? "compress-" : "throughput-") + t);
      worker.setDaemon(true);
      threadIds[t] = worker.getId();
      worker.start();
    }
    started.await();
    System.out.println("ready");
    System.out.flush();
    Thread.sleep((long) (warmupSeconds * 1000));
    awaitJitSettled();
    System.out.println("warm");
    System.out.flush();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    // Thread CPU time includes the interrupts that hit the thread (no IRQ time accounting), so ops per CPU
    // second keeps in-thread profiling costs while ignoring how much CPU a busy machine left us.
    ThreadMXBean bean = ManagementFactory.getThreadMXBean();
    for (String line; (line = in.readLine()) != null; ) {
      if (!line.startsWith("go ")) continue;
      double seconds = Double.parseDouble(line.substring(3).trim());
      long[] before = new long[threads];
      long[] cpuBefore = new long[threads];
      for (int t = 0; t < threads; ++t) {
        before[t] = ops.get(t);
        cpuBefore[t] = bean.getThreadCpuTime(threadIds[t]);
      }
      long start = System.nanoTime();
      Thread.sleep((long) (seconds * 1000));
      long elapsed = System.nanoTime() - start;
      for (int t = 0; t < threads; ++t) {
        long done = ops.get(t) - before[t];
        long cpu = bean.getThreadCpuTime(threadIds[t]) - cpuBefore[t];
        double rate = done / (elapsed / 1e9);
        double perCpuSecond = cpu > 0 ? done / (cpu / 1e9) : 0;
        System.out.println("ops " + t + " " + rate + " " + perCpuSecond + " " + done + " " + cpu);
      }
      System.out.println("done");
      System.out.flush();
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length == 3 && (args[0].equals("deep") || args[0].equals("distinct"))) {
      deep(Integer.parseInt(args[1]), Integer.parseInt(args[2]), args[0].equals("distinct"));
    } else if ((args.length == 3
                || args.length == 4 && (args[3].equals("zlib") || args[3].equals("alloc") || args[3].equals("lock")))
               && args[0].equals("throughput")) {
      throughput(Integer.parseInt(args[1]), Double.parseDouble(args[2]), args.length == 4 ? args[3] : "");
    } else {
      System.err.println("usage: SamplerWorkload deep|distinct DEPTH THREADS"
                         + " | throughput THREADS WARMUP_SECONDS [zlib|alloc|lock]");
      System.exit(2);
    }
  }
}
