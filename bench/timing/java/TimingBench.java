import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The method timing benchmark's workload: a small method called in a loop, timed by the thread's own CPU
 * time (user + system, so uprobe handling in the kernel counts). Warms up, prints "ready <pid>", waits for
 * the file named by its first argument, then runs rounds of <calls> calls and prints the median CPU
 * nanoseconds per call.
 */
public class TimingBench {
    static int sink;

    static int work(int x) {
        return x * 31 + 7;
    }

    public static void main(String[] args) throws Exception {
        Path go = Path.of(args[0]);
        int calls = Integer.parseInt(args[1]);
        int rounds = Integer.parseInt(args[2]);
        for (int i = 0; i < 5_000_000; i++) {
            sink += work(i);
        }
        System.out.println("ready " + ProcessHandle.current().pid());
        while (!Files.exists(go)) {
            Thread.sleep(20);
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        double[] perCall = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            long start = threads.getCurrentThreadCpuTime();
            for (int i = 0; i < calls; i++) {
                sink += work(i);
            }
            perCall[r] = (double) (threads.getCurrentThreadCpuTime() - start) / calls;
        }
        Arrays.sort(perCall);
        System.out.printf("median-ns %.2f min-ns %.2f max-ns %.2f sink %d%n", perCall[rounds / 2], perCall[0],
                perCall[rounds - 1], sink & 1);
    }
}
