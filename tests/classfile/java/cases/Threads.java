package cases;

import java.util.concurrent.atomic.AtomicLong;

final class Threads {
    static final AtomicLong TOTAL = new AtomicLong();

    static void work(int id) {
        for (int i = 0; i < 1000; i++) {
            TOTAL.addAndGet(step(id, i));
        }
    }

    static int step(int id, int i) {
        return (id * i) % 7;
    }

    static void run() throws InterruptedException {
        Thread[] threads = new Thread[4];
        for (int t = 0; t < threads.length; t++) {
            final int id = t;
            threads[t] = new Thread(() -> work(id));
            threads[t].start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
        System.out.println("threads " + TOTAL.get());
    }
}
