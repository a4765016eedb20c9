// Threads that each allocate one kind of object without end, for the allocation tests: "bytes" allocates
// byte[1000] (through allocateBytes), "particles" Particle objects (through allocateParticles), each keeping
// the latest in a small ring so that the JIT cannot elide them. Each stamps its own allocated bytes (the JVM's
// count, ThreadMXBean.getCurrentThreadAllocatedBytes) with System.nanoTime (CLOCK_MONOTONIC, the recording's
// clock) after every batch; main writes every stamp to the file named by its argument every 200 ms, as lines
// "<thread> <nanoTime> <allocatedBytes>". Runs until killed.
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

public final class AllocatingThreads {
  static final class Particle {
    double x, y, z;
    long id;

    Particle(long id) {
      this.id = id;
      this.x = id * 0.5;
    }
  }

  static final class Stamps {
    final String thread;
    final long[] times = new long[1 << 20];
    final long[] bytes = new long[1 << 20];
    volatile int count;

    Stamps(String thread) {
      this.thread = thread;
    }

    void stamp() {
      int n = count;
      if (n == times.length) return;
      times[n] = System.nanoTime();
      bytes[n] = allocated();
      count = n + 1;
    }
  }

  static final Object[] byteSink = new Object[256];
  static final Object[] particleSink = new Object[256];
  static final List<Stamps> all = new ArrayList<>();

  public static void main(String[] args) throws Exception {
    Path truth = Path.of(args[0]);
    Stamps bytes = new Stamps("bytes"), particles = new Stamps("particles");
    all.add(bytes);
    all.add(particles);
    E2eSupport.start("bytes", () -> loop(bytes, true));
    E2eSupport.start("particles", () -> loop(particles, false));
    Path partial = truth.resolveSibling(truth.getFileName() + ".part");
    while (true) {
      Thread.sleep(200);
      StringBuilder text = new StringBuilder();
      for (Stamps s : all) {
        int n = s.count;
        for (int i = 0; i < n; ++i) text.append(s.thread).append(' ').append(s.times[i]).append(' ').append(s.bytes[i]).append('\n');
      }
      Files.writeString(partial, text);
      Files.move(partial, truth, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
  }

  // Looked up once: getThreadMXBean allocates, and a stamp must not.
  static final com.sun.management.ThreadMXBean threads =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  static long allocated() {
    return threads.getCurrentThreadAllocatedBytes();
  }

  static void loop(Stamps stamps, boolean arrays) {
    for (long i = 0;; ++i) {
      if (arrays) {
        allocateBytes(i);
      } else {
        allocateParticles(i);
      }
      if ((i & 63) == 0) stamps.stamp();
    }
  }

  static void allocateBytes(long i) {
    for (int k = 0; k < 256; ++k) byteSink[k] = new byte[1000];  // LINE:bytes
  }

  static void allocateParticles(long i) {
    for (int k = 0; k < 256; ++k) particleSink[k] = new Particle(i + k);  // LINE:particles
  }
}
