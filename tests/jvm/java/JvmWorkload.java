// Workload for the agent tests. Comments "LINE:<marker>" tag lines the tests look up in this source to check
// line numbers resolved through the agent. Prints "THREAD <name> <javaId>" per worker, "RENAMED <name>
// <javaId>" after a rename, "READY" once everything runs, and exits after the given seconds (0 = never).
// Arguments: seconds, workers, and optionally a number of extra hidden classes to define after READY
// (then prints "BURST <count>") and "release" to let them go and collect them (then prints "RELEASED").
import java.io.InputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntUnaryOperator;

public class JvmWorkload {
  static volatile long sink;

  static int leaf(int x) {
    return (x * 31) ^ (x >>> 7); // LINE:leaf
  }

  static int middle(int x) {
    int a = leaf(x); // LINE:middle-calls-leaf
    return a + (x & 3);
  }

  static long inlineRoot(int n) {
    long sum = 0;
    for (int i = 0; i < n; i++) {
      sum += middle(i); // LINE:root-calls-middle
    }
    return sum;
  }

  static int answer() {
    return 42; // LINE:answer
  }

  static long lambdaLoop(IntUnaryOperator op, int n) {
    long sum = 0;
    for (int i = 0; i < n; i++) {
      sum += op.applyAsInt(i);
    }
    return sum;
  }

  static final List<Class<?>> burst = new ArrayList<>();

  static byte[] hiddenPayloadBytes() throws Throwable {
    try (InputStream in = JvmWorkload.class.getResourceAsStream("HiddenPayload.class")) {
      return in.readAllBytes();
    }
  }

  static MethodHandle hiddenCompute() throws Throwable {
    MethodHandles.Lookup hidden = MethodHandles.lookup().defineHiddenClass(hiddenPayloadBytes(), true);
    return hidden.findStatic(hidden.lookupClass(), "compute", MethodType.methodType(int.class, int.class));
  }

  static void work(MethodHandle hidden) {
    IntUnaryOperator op = v -> v * 3 + 1;
    try {
      while (true) {
        sink += inlineRoot(10_000);
        sink += lambdaLoop(op, 1_000);
        for (int i = 0; i < 100; i++) sink += (int) hidden.invokeExact(i);
        sink += answer();
      }
    } catch (Throwable t) {
      throw new RuntimeException(t);
    }
  }

  public static void main(String[] args) throws Throwable {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 0;
    int workers = args.length > 1 ? Integer.parseInt(args[1]) : 2;
    int burstClasses = args.length > 2 ? Integer.parseInt(args[2]) : 0;
    MethodHandle hidden = hiddenCompute();
    List<Thread> threads = new ArrayList<>();
    for (int i = 1; i <= workers; i++) {
      Thread t = new Thread(() -> work(hidden), "jvmtest-worker-" + i);
      t.setDaemon(true);
      threads.add(t);
    }
    Thread renamer = new Thread(() -> {
      try {
        Thread.sleep(300);
        Thread.currentThread().setName("jvmtest-renamed");
        System.out.println("RENAMED jvmtest-renamed " + Thread.currentThread().getId());
        Thread.sleep(Long.MAX_VALUE);
      } catch (InterruptedException e) {
        // exit
      }
    }, "jvmtest-rename-me");
    renamer.setDaemon(true);
    threads.add(renamer);
    for (Thread t : threads) {
      t.start();
      System.out.println("THREAD " + t.getName() + " " + t.getId());
    }
    System.out.println("READY");
    System.out.flush();
    if (burstClasses > 0) {
      byte[] bytes = hiddenPayloadBytes();
      for (int i = 0; i < burstClasses; i++) {
        burst.add(MethodHandles.lookup().defineHiddenClass(bytes, true).lookupClass());
      }
      System.out.println("BURST " + burst.size());
      System.out.flush();
      if (args.length > 3 && args[3].equals("release")) {
        burst.clear();
        System.gc();  // a full collection: G1 unloads the unreachable hidden classes
        System.out.println("RELEASED");
        System.out.flush();
      }
    }
    if (seconds > 0) {
      Thread.sleep(seconds * 1000L);
      System.exit(0);
    }
    Thread.sleep(Long.MAX_VALUE);
  }
}

// Defined as a hidden class by JvmWorkload (never loaded by name).
class HiddenPayload {
  static int compute(int x) {
    return x * 7 + 3; // LINE:hidden-compute
  }
}
