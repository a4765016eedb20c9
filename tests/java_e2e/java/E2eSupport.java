// Shared by the end-to-end workloads: every worker announces itself as "ready <name> <tid> <javaThreadId>"
// (tid = the Linux thread id the profiler sees), and main either runs until killed (no argument) or for the
// given seconds, then prints "cpu <name> <tid> <nanoseconds>" per worker that reported its own CPU time.
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

final class E2eSupport {
  private static final List<String> cpuLines = new ArrayList<>();

  private E2eSupport() {}

  // /proc/thread-self resolves to /proc/<pid>/task/<tid>: the kernel's id of the calling thread.
  static long osThreadId() {
    try {
      return Long.parseLong(Path.of("/proc/thread-self").toRealPath().getFileName().toString());
    } catch (Exception e) {
      throw new IllegalStateException("cannot read /proc/thread-self", e);
    }
  }

  @SuppressWarnings("deprecation")  // Thread.threadId() is JDK 19+; getId() is the same value
  static synchronized void announce() {
    Thread self = Thread.currentThread();
    System.out.println("ready " + self.getName() + " " + osThreadId() + " " + self.getId());
    System.out.flush();
  }

  static Thread start(String name, Runnable body) {
    Thread thread = new Thread(() -> {
      announce();
      body.run();
    }, name);
    thread.setDaemon(true);
    thread.start();
    return thread;
  }

  // For workers that stop by themselves: their CPU time over their whole life, measured by themselves
  // just before they return (so no CPU time of theirs goes unreported).
  static synchronized void reportOwnCpuTime() {
    long ns = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
    cpuLines.add("cpu " + Thread.currentThread().getName() + " " + osThreadId() + " " + ns);
  }

  static double seconds(String[] args) {
    return args.length > 0 ? Double.parseDouble(args[0]) : 0;
  }

  // Runs forever when `seconds` is 0 (the test kills the JVM), else sleeps that long and exits.
  static void runFor(double seconds) throws InterruptedException {
    Thread.sleep(seconds <= 0 ? Long.MAX_VALUE : (long) (seconds * 1000));
  }

  static synchronized void printCpuTimes() {
    for (String line : cpuLines) System.out.println(line);
    System.out.flush();
  }
}
