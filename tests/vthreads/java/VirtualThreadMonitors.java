// Virtual threads blocked on a monitor, in rounds: a holder enters the monitor and sleeps 100 ms in it, while six
// waiters, started once it holds it, block to enter it (since JDK 24 a blocked virtual thread unmounts), and
// four other virtual threads keep the carriers busy, yielding, so that a waiter goes on where another began.
// Each waiter measures its wait around `synchronized`. After each round it prints
// "round <start> <end> <waiters> <blockedNanos>", start and end in UTC nanoseconds of the day; "ready" after
// the first; runs for as many seconds as the first argument says.
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

public class VirtualThreadMonitors {
  static final Object lock = new Object();
  static final int WAITERS = 6;

  static long nanosOfDay() {
    Instant now = Instant.now();
    return (now.getEpochSecond() % 86_400) * 1_000_000_000L + now.getNano();
  }

  static void waiter(AtomicLong blocked) {
    long start = System.nanoTime();
    synchronized (lock) {
      blocked.addAndGet(System.nanoTime() - start);
    }
  }

  public static void main(String[] args) throws Exception {
    long end = System.nanoTime() + Long.parseLong(args[0]) * 1_000_000_000L;
    boolean announced = false;
    while (System.nanoTime() < end) {
      long roundStart = nanosOfDay();
      AtomicLong blocked = new AtomicLong();
      CountDownLatch held = new CountDownLatch(1);
      Thread holder = Thread.ofVirtual().start(() -> {
        synchronized (lock) {
          held.countDown();
          try {
            Thread.sleep(100);
          } catch (InterruptedException e) {
            return;
          }
        }
      });
      held.await();
      Thread[] threads = new Thread[WAITERS + 4];
      for (int i = 0; i < WAITERS; i++) threads[i] = Thread.ofVirtual().start(() -> waiter(blocked));
      for (int i = WAITERS; i < threads.length; i++) {
        threads[i] = Thread.ofVirtual().start(() -> {
          long until = System.nanoTime() + 80_000_000L;
          while (System.nanoTime() < until) Thread.yield();
        });
      }
      holder.join();
      for (Thread t : threads) t.join();
      System.out.println("round " + roundStart + " " + nanosOfDay() + " " + WAITERS + " " + blocked.get());
      if (!announced) {
        System.out.println("ready");
        announced = true;
      }
      System.out.flush();
    }
    System.out.println("done");
  }
}
