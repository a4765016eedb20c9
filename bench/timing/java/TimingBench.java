import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The method timing benchmark's workload: a small method called in a loop by <threads> threads, each timed
 * by its own CPU time (user + system, so uprobe handling in the kernel would count). Warms up, prints
 * "ready <pid>", waits for the file named by its first argument, warms up again (instrumentation applied
 * after the first warm-up sends the code back through the JIT: the steady state is what is measured, as
 * for the JDK's own timing, applied from the start), then runs rounds of <calls> calls per thread and
 * prints the median CPU nanoseconds per call over all threads' rounds.
 */
public class TimingBench {
    static final int WARMUP_ROUNDS = 40;
    static volatile int sink;

    static int work(int x) {
        return x * 31 + 7;
    }

    static int spin(int calls) {
        int sum = 0;
        for (int i = 0; i < calls; i++) {
            sum += work(i);
        }
        return sum;
    }

    public static void main(String[] args) throws Exception {
        Path go = Path.of(args[0]);
        int calls = Integer.parseInt(args[1]);
        int rounds = Integer.parseInt(args[2]);
        int threads = args.length > 3 ? Integer.parseInt(args[3]) : 1;
        for (int w = 0; w < WARMUP_ROUNDS * 2; w++) {
            sink += spin(calls);
        }
        System.out.println("ready " + ProcessHandle.current().pid());
        while (!Files.exists(go)) {
            Thread.sleep(20);
        }
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        double[] perCall = new double[rounds * threads];
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            final int first = t * rounds;
            workers[t] = new Thread(() -> {
                for (int w = 0; w < WARMUP_ROUNDS; w++) {
                    sink += spin(calls);
                }
                for (int r = 0; r < rounds; r++) {
                    long start = cpu.getCurrentThreadCpuTime();
                    sink += spin(calls);
                    perCall[first + r] = (double) (cpu.getCurrentThreadCpuTime() - start) / calls;
                }
            }, "bench-" + t);
            workers[t].start();
        }
        for (Thread worker : workers) {
            worker.join();
        }
        Arrays.sort(perCall);
        int n = perCall.length;
        System.out.printf("median-ns %.2f min-ns %.2f max-ns %.2f threads %d sink %d%n", perCall[n / 2], perCall[0],
                perCall[n - 1], threads, sink & 1);
    }
}
