// Workload with a known CPU split for the view tests: on thread "view-worker", heavy() does about three
// times the work of light(); timed() is called often and traced() a few times, for JDK 25's method timing
// and tracing. Runs for the number of milliseconds given as the first argument.
public class ViewWorkload {
    static volatile long sink;

    static long heavy(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) s += (i * 31L) ^ (s >>> 3);
        return s;
    }

    static long light(int n) {
        long s = 7;
        for (int i = 0; i < n; i++) s += (i * 17L) ^ (s >>> 5);
        return s;
    }

    static int timed(int x) {
        return x * 3 + 1;
    }

    static void traced() throws InterruptedException {
        Thread.sleep(2);
    }

    public static void main(String[] args) throws Exception {
        long end = System.nanoTime() + Long.parseLong(args[0]) * 1_000_000L;
        Thread worker = new Thread(() -> {
            while (System.nanoTime() < end) {
                sink += heavy(300_000);
                sink += light(100_000);
                for (int i = 0; i < 50; i++) sink += timed(i);
            }
        }, "view-worker");
        worker.start();
        for (int i = 0; i < 10; i++) traced();
        worker.join();
    }
}
